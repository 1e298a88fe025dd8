package dev.pubsubclickhouse.messages.cdc;

import com.clickhouse.data.ClickHouseDataType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.write.TargetTable;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * A row of a change: the source row's fields, and the change's metadata, which go into the columns
 * of these names when the target table has them (empty or 0 where the event has none: a MySQL event
 * has no LSN, a snapshot read without GTIDs no transaction). A delete row ({@link #deleted()})
 * holds only what the event knows of the deleted row (often just its key): every other column takes
 * its DEFAULT.
 */
public final class ChangeRow extends ObjectNode {
  public static final String OP = "__op";
  public static final String SOURCE_TS_MS = "__source_ts_ms";
  public static final String INGESTED_AT = "__ingested_at";
  public static final String SOURCE_TABLE = "__source_table";
  public static final String TRANSACTION_ID = "__transaction_id";
  public static final String LSN = "__lsn";
  public static final String IS_DELETED = "__is_deleted";
  public static final String VERSION = "__version";

  /** Every column the service fills from a change's metadata when the table has it. */
  public static final Set<String> METADATA_COLUMNS =
      Set.of(OP, SOURCE_TS_MS, INGESTED_AT, SOURCE_TABLE, TRANSACTION_ID, LSN, IS_DELETED, VERSION);

  private final ChangeEvent event;
  private final boolean deleted;

  ChangeRow(ObjectNode fields, ChangeEvent event, boolean deleted) {
    super(JsonNodeFactory.instance);
    setAll(fields);
    this.event = event;
    this.deleted = deleted;
  }

  /** A delete row: its columns without a value take their DEFAULT, never reject it. */
  public boolean deleted() {
    return deleted;
  }

  /** Puts the change's metadata into the metadata columns {@code schema} has. */
  public void addMetadata(TargetTable.Snapshot schema, String ingestedAt) {
    Set<String> columns = schema.columns();
    if (columns.contains(OP)) {
      put(OP, event.op());
    }
    if (columns.contains(SOURCE_TS_MS)) {
      JsonNode tsMs = event.source().get("ts_ms");
      long millis = tsMs != null && tsMs.canConvertToLong() ? tsMs.longValue() : 0;
      if (isDateTime(schema.definitions(), SOURCE_TS_MS)) {
        put(SOURCE_TS_MS, Instant.ofEpochMilli(millis).toString());
      } else {
        put(SOURCE_TS_MS, millis);
      }
    }
    if (columns.contains(INGESTED_AT)) {
      put(INGESTED_AT, ingestedAt);
    }
    if (columns.contains(SOURCE_TABLE)) {
      put(SOURCE_TABLE, event.table().name());
    }
    if (columns.contains(TRANSACTION_ID)) {
      put(TRANSACTION_ID, event.transactionId() == null ? "" : event.transactionId());
    }
    if (columns.contains(LSN)) {
      JsonNode lsn = event.source().get("lsn");
      set(
          LSN,
          lsn != null && lsn.isIntegralNumber() ? lsn : JsonNodeFactory.instance.numberNode(0));
    }
    if (columns.contains(IS_DELETED)) {
      put(IS_DELETED, deleted ? 1 : 0);
    }
    if (columns.contains(VERSION)) {
      put(VERSION, Long.toUnsignedString(event.version()));
    }
  }

  /**
   * Why the row does not fit, with the likely cause when the event had no schema: Debezium writes a
   * DECIMAL or NUMERIC as base64 bytes that only the schema's scale makes a number of.
   */
  public String explain(RowRejectedException rejection) {
    String reason = rejection.getMessage();
    JsonNode value = rejection.column() == null ? null : get(rejection.column());
    if (!event.withSchema()
        && value != null
        && value.isTextual()
        && reason.startsWith("column '" + rejection.column() + "' (")
        && reason.contains("Decimal")) {
      return reason
          + " (a Debezium event without its schema holds a DECIMAL as base64 bytes, which cannot"
          + " be read: set decimal.handling.mode=string on the connector, or enable the"
          + " converter's schemas)";
    }
    return reason;
  }

  private static boolean isDateTime(List<ColumnDefinition> definitions, String name) {
    for (ColumnDefinition column : definitions) {
      if (column.name().equals(name)) {
        ClickHouseDataType type = column.parsed().getDataType();
        return type == ClickHouseDataType.DateTime64 || type == ClickHouseDataType.DateTime;
      }
    }
    return false;
  }
}
