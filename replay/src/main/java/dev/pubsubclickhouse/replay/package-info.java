/**
 * {@code java -jar replay.jar}: dead letters back where they belong once their cause is fixed, from
 * the ClickHouse dead-letter table into the target table ({@code table}), or from a dead-letter
 * subscription to the source topic ({@code subscription}). The filters, the dry run and the rate
 * limit both commands share live here.
 */
package dev.pubsubclickhouse.replay;
