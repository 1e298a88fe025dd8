package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One Debezium message read: a row change, a truncate, or a message that carries no change and is
 * acknowledged without a row.
 *
 * @param kind what the message is
 * @param skipped for {@link Kind#SKIPPED}: what it was ({@code tombstone}, {@code heartbeat},
 *     {@code transaction}, {@code schema_change}), the metric's label
 * @param op Debezium's {@code op}: c, u, d, r or t
 * @param table the source table
 * @param before the row before the change, semantic types decoded; null when absent
 * @param after the row after the change, semantic types decoded; null when absent
 * @param key the record key (from the message's ordering key or attributes), decoded; null when the
 *     message carries none
 * @param source Debezium's {@code source} block
 * @param version the change's version, unsigned ({@link ChangeVersion})
 * @param transactionId {@code transaction.id}, else Postgres' txId or MySQL's GTID; null if none
 * @param withSchema the message had the {@code schema}/{@code payload} wrapper
 */
public record ChangeEvent(
    Kind kind,
    String skipped,
    String op,
    SourceTable table,
    ObjectNode before,
    ObjectNode after,
    ObjectNode key,
    JsonNode source,
    long version,
    String transactionId,
    boolean withSchema) {

  public enum Kind {
    /** c, u or r: the {@code after} row is written. */
    UPSERT,
    /** d: a row marked deleted is written, built from {@code before} or the key. */
    DELETE,
    /** t: the table's rows of a lower version are deleted. */
    TRUNCATE,
    /** Nothing to write: a tombstone, heartbeat, transaction marker or schema change. */
    SKIPPED
  }

  static ChangeEvent skipped(String what) {
    return new ChangeEvent(Kind.SKIPPED, what, null, null, null, null, null, null, 0, null, false);
  }

  /**
   * True for the last record of a snapshot of its table: rows of a lower version than it were not
   * read again, so they are gone from the source.
   */
  public boolean endsSnapshot() {
    String snapshot = source == null ? "" : source.path("snapshot").asText("");
    return "r".equals(op)
        && (snapshot.equals("last") || snapshot.equals("last_in_data_collection"));
  }
}
