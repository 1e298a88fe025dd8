package dev.pubsubclickhouse.backfill.write;

import java.time.Instant;

/**
 * A source row that could not be written.
 *
 * @param position the row's position in the source table
 * @param row the row as compact JSON
 * @param reason why: the column, its type, the value and the rule, or ClickHouse's message
 */
public record RejectedRow(long position, String row, String reason, Instant failedAt) {}
