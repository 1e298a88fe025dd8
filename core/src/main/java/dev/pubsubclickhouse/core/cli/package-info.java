/** What the command-line programs (the backfill job, the replay) share about how they start. */
package dev.pubsubclickhouse.core.cli;
