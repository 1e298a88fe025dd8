/**
 * The ClickHouse client, the INSERT with its settings and retries, and the one classification of
 * failures.
 */
package dev.pubsubclickhouse.core.insert;
