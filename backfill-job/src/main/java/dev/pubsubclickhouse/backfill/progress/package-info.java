/** What the job tells its operator: log lines, the progress bar or progress lines, the summary. */
package dev.pubsubclickhouse.backfill.progress;
