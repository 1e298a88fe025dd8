package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One Debezium message read: a row change, a truncate, or a message that carries no change and is
 * acknowledged without a row. A change is built with {@link #change(Kind, String)}, a message
 * without one with {@link #skipped(String)}.
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

  /** A row change or truncate of {@code kind} with Debezium's {@code op}, the rest to be set. */
  static Builder change(Kind kind, String op) {
    return new Builder(kind, op);
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

  /** Builds a change: every field not set is null, the version 0, without schema wrapper. */
  static final class Builder {
    private final Kind kind;
    private final String op;
    private SourceTable table;
    private ObjectNode before;
    private ObjectNode after;
    private ObjectNode key;
    private JsonNode source;
    private long version;
    private String transactionId;
    private boolean withSchema;

    private Builder(Kind kind, String op) {
      this.kind = kind;
      this.op = op;
    }

    Builder table(SourceTable table) {
      this.table = table;
      return this;
    }

    Builder before(ObjectNode before) {
      this.before = before;
      return this;
    }

    Builder after(ObjectNode after) {
      this.after = after;
      return this;
    }

    Builder key(ObjectNode key) {
      this.key = key;
      return this;
    }

    Builder source(JsonNode source) {
      this.source = source;
      return this;
    }

    Builder version(long version) {
      this.version = version;
      return this;
    }

    Builder transactionId(String transactionId) {
      this.transactionId = transactionId;
      return this;
    }

    Builder withSchema(boolean withSchema) {
      this.withSchema = withSchema;
      return this;
    }

    ChangeEvent build() {
      return new ChangeEvent(
          kind, null, op, table, before, after, key, source, version, transactionId, withSchema);
    }
  }
}
