package dev.pubsubclickhouse.messages;

import dev.pubsubclickhouse.core.config.Parameter;
import java.util.List;

/**
 * The parameters that decide how a message becomes rows (its payload's size and schema, its table,
 * its unknown fields), read alike by the push service and by replay. The push service's table of
 * parameters lists them among its own.
 */
public final class MessageParameters {
  private MessageParameters() {}

  public static final Parameter PUBSUB_ENDPOINT =
      Parameter.of(
          "PUBSUB_ENDPOINT",
          null,
          "Pub/Sub host:port override (emulator), plaintext: the dead-letter topic and the schema"
              + " service.");
  public static final Parameter SCHEMA_DENIED_GRACE_SECONDS =
      Parameter.of(
          "SCHEMA_DENIED_GRACE_SECONDS",
          "600",
          "A message whose Pub/Sub schema the service may not read (PERMISSION_DENIED) is"
              + " answered 503 while this instance has seen the denial for less than this long"
              + " (IAM grants take minutes to propagate), then dead-lettered with the reason.");
  public static final Parameter SCHEMA_LOOKUPS_PER_MINUTE =
      Parameter.of(
          "SCHEMA_LOOKUPS_PER_MINUTE",
          "60",
          "Lookups one instance makes in Pub/Sub's schema service a minute at most; a message"
              + " whose schema would need one more is answered 503 (Pub/Sub keeps it and delivers"
              + " it again).");
  public static final Parameter MAX_DECOMPRESSED_BYTES =
      Parameter.of(
          "MAX_DECOMPRESSED_BYTES",
          "16777216",
          "Cap on gzip/zstd message data once decompressed; beyond it the message is a data"
              + " error. The memory it expands into counts against MAX_PENDING_BYTES as it is"
              + " produced.");
  public static final Parameter CLICKHOUSE_TABLE_ATTRIBUTE =
      Parameter.of(
          "CLICKHOUSE_TABLE_ATTRIBUTE",
          null,
          "Message attribute that names the message's table (`table` or `db.table`), one of"
              + " CLICKHOUSE_TABLES; a message without it goes to CLICKHOUSE_TABLE, one naming"
              + " another table to the dead letters.");
  public static final Parameter CLICKHOUSE_TABLES =
      Parameter.of(
          "CLICKHOUSE_TABLES",
          null,
          "With CLICKHOUSE_TABLE_ATTRIBUTE: the tables a message may name, comma-separated; each"
              + " is read when a message first names it.");
  public static final Parameter SCHEMA_EVOLUTION =
      Parameter.of(
          "SCHEMA_EVOLUTION",
          "off",
          "off, or add_columns: a field no column takes gets a Nullable column typed from its"
              + " value (ALTER TABLE ... ADD COLUMN IF NOT EXISTS) before its message is written.");
  public static final Parameter SCHEMA_EVOLUTION_FALLBACK_TYPE =
      Parameter.of(
          "SCHEMA_EVOLUTION_FALLBACK_TYPE",
          "Nullable(String)",
          "Type of a new column whose first value is an object, an array or a number beyond"
              + " Int64 (e.g. JSON).");
  public static final Parameter SCHEMA_EVOLUTION_MAX_NEW_COLUMNS =
      Parameter.of(
          "SCHEMA_EVOLUTION_MAX_NEW_COLUMNS",
          "20",
          "Columns one instance may add to one table per hour; further new fields get none.");
  public static final Parameter SCHEMA_EVOLUTION_MAX_TABLE_COLUMNS =
      Parameter.of(
          "SCHEMA_EVOLUTION_MAX_TABLE_COLUMNS",
          "1000",
          "No column is added to a table that has this many.");
  public static final Parameter CLICKHOUSE_CLUSTER =
      Parameter.of(
          "CLICKHOUSE_CLUSTER",
          null,
          "Cluster of the target tables: the service's ALTERs run ON CLUSTER it.");
  public static final Parameter UNKNOWN_FIELDS_COLUMN =
      Parameter.of(
          "UNKNOWN_FIELDS_COLUMN",
          null,
          "Column that receives, as one object, the fields no other column takes (String, JSON or"
              + " Map(String, String)); tables without it ignore unknown fields.");
  public static final Parameter COLUMN_MAPPING =
      Parameter.of(
          "COLUMN_MAPPING",
          null,
          "Columns that take their value from elsewhere than the field of their name,"
              + " comma-separated `column=path` pairs: a nested path (`user_id=user.id`,"
              + " `sku=items[0].sku`, `\"a.b\"` for a key holding `.`), the message data"
              + " (`raw=$data`) or an attribute (`origin=$attributes.origin`); applies to every"
              + " table that has the column; see docs/configuration.md#column-mapping.");
  public static final Parameter COLUMN_MAPPING_FILE =
      Parameter.of(
          "COLUMN_MAPPING_FILE",
          null,
          "File of COLUMN_MAPPING pairs, one a line (`#` comments and blank lines allowed), read"
              + " with COLUMN_MAPPING's.");
  public static final Parameter PAYLOAD_FORMAT =
      Parameter.of(
          "PAYLOAD_FORMAT",
          "json",
          "json, or debezium: each message is a Debezium change event (JSON, with or without the"
              + " schema/payload wrapper), written to its source table's CDC_TABLES target; see"
              + " docs/cdc.md.");
  public static final Parameter CDC_TABLES =
      Parameter.of(
          "CDC_TABLES",
          null,
          "With PAYLOAD_FORMAT=debezium: source table to ClickHouse table, comma-separated"
              + " (`public.orders=shop.orders`; Postgres schema.table, MySQL db.table,"
              + " case-sensitive); a change of another table goes to the dead letters.");
  public static final Parameter CDC_TRUNCATE =
      Parameter.of(
          "CDC_TRUNCATE",
          "delete",
          "delete: a truncate deletes its table's rows of a lower __version (lightweight DELETE);"
              + " dead_letter: it goes to the dead letters.");
  public static final Parameter CDC_TRUNCATE_MARKS_TABLE =
      Parameter.of(
          "CDC_TRUNCATE_MARKS_TABLE",
          "_cdc_truncate_marks",
          "With PAYLOAD_FORMAT=debezium: the table (`db.table`, or a table in CLICKHOUSE_DATABASE)"
              + " that keeps the versions of truncates and re-snapshots, so that every instance"
              + " deletes a change older than one that arrives after it; created at start when"
              + " missing; see docs/cdc.md#truncates-and-re-snapshots.");
  public static final Parameter CDC_VERSION_EPOCH =
      Parameter.of(
          "CDC_VERSION_EPOCH",
          "0",
          "0 to 255, put in the top 8 bits of __version: raise it when the source's log positions"
              + " start over, so that its new changes sort after the old ones.");

  /** Every one of them, in the order above. */
  public static final List<Parameter> ALL =
      List.of(
          PUBSUB_ENDPOINT,
          SCHEMA_DENIED_GRACE_SECONDS,
          SCHEMA_LOOKUPS_PER_MINUTE,
          MAX_DECOMPRESSED_BYTES,
          CLICKHOUSE_TABLE_ATTRIBUTE,
          CLICKHOUSE_TABLES,
          SCHEMA_EVOLUTION,
          SCHEMA_EVOLUTION_FALLBACK_TYPE,
          SCHEMA_EVOLUTION_MAX_NEW_COLUMNS,
          SCHEMA_EVOLUTION_MAX_TABLE_COLUMNS,
          CLICKHOUSE_CLUSTER,
          UNKNOWN_FIELDS_COLUMN,
          COLUMN_MAPPING,
          COLUMN_MAPPING_FILE,
          PAYLOAD_FORMAT,
          CDC_TABLES,
          CDC_TRUNCATE,
          CDC_TRUNCATE_MARKS_TABLE,
          CDC_VERSION_EPOCH);
}
