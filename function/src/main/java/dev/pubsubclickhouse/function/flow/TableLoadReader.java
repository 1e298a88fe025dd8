package dev.pubsubclickhouse.function.flow;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@link TableLoad} from ClickHouse's system tables in one query: {@code system.parts}
 * (active parts per partition, block numbers), {@code system.merges}, {@code system.events}, the
 * table's own SETTINGS ({@code system.tables.engine_full}) over the server's ({@code
 * system.merge_tree_settings}).
 */
public final class TableLoadReader {
  private static final String PARTS =
      "FROM system.parts WHERE database = {database:String} AND table = {table:String} AND active";
  private static final String QUERY =
      "SELECT"
          + " (SELECT any(engine) FROM system.tables"
          + " WHERE database = {database:String} AND name = {table:String}) AS engine,"
          + " (SELECT any(engine_full) FROM system.tables"
          + " WHERE database = {database:String} AND name = {table:String}) AS engine_full,"
          + " (SELECT count() "
          + PARTS
          + ") AS active_parts,"
          + " (SELECT max(c) FROM (SELECT count() AS c "
          + PARTS
          + " GROUP BY partition_id)) AS partition_parts,"
          + " (SELECT max(b) FROM (SELECT max(max_block_number) AS b "
          + PARTS
          + " GROUP BY partition_id)) AS newest_block,"
          + " (SELECT sum(b) FROM (SELECT max(max_block_number) AS b "
          + PARTS
          + " GROUP BY partition_id)) AS newest_blocks_summed,"
          + " (SELECT count() FROM system.merges"
          + " WHERE database = {database:String} AND table = {table:String}) AS merges,"
          + " (SELECT sum(value) FROM system.events WHERE event = 'DelayedInserts') AS delayed,"
          + " (SELECT sum(value) FROM system.events WHERE event = 'RejectedInserts') AS rejected,"
          + defaultSetting("parts_to_delay_insert")
          + ","
          + defaultSetting("parts_to_throw_insert")
          + ","
          + defaultSetting("max_parts_in_total");

  private final Client client;
  private final TableName table;

  public TableLoadReader(Client client, TableName table) {
    this.client = client;
    this.table = table;
  }

  private static String defaultSetting(String name) {
    return " (SELECT toUInt64OrZero(any(value)) FROM system.merge_tree_settings WHERE name = '"
        + name
        + "') AS "
        + name;
  }

  /**
   * @throws RuntimeException when ClickHouse does not answer or the table is gone
   */
  public TableLoad read() {
    List<GenericRecord> rows =
        client.queryAll(QUERY, Map.of("database", table.database(), "table", table.table()));
    GenericRecord row = rows.get(0);
    String engine = row.getString("engine");
    if (engine == null || engine.isEmpty()) {
      throw new IllegalStateException("table " + table + " is not in system.tables");
    }
    String engineFull = row.getString("engine_full");
    // Replicated and shared tables number blocks per partition, the others per table.
    boolean perPartition = engine.startsWith("Replicated") || engine.startsWith("Shared");
    return TableLoad.builder()
        .partitionParts(row.getLong("partition_parts"))
        .activeParts(row.getLong("active_parts"))
        .partsToDelayInsert(
            setting(engineFull, "parts_to_delay_insert", row.getLong("parts_to_delay_insert")))
        .partsToThrowInsert(
            setting(engineFull, "parts_to_throw_insert", row.getLong("parts_to_throw_insert")))
        .maxPartsInTotal(
            setting(engineFull, "max_parts_in_total", row.getLong("max_parts_in_total")))
        .blocksWritten(
            perPartition ? row.getLong("newest_blocks_summed") : row.getLong("newest_block"))
        .merges(row.getLong("merges"))
        .delayedInserts(row.getLong("delayed"))
        .rejectedInserts(row.getLong("rejected"))
        .build();
  }

  /** The table's own value of a setting (its SETTINGS clause), else the server's. */
  static long setting(String engineFull, String name, long serverDefault) {
    Matcher value =
        Pattern.compile("(?<![A-Za-z0-9_])" + name + "\\s*=\\s*(\\d+)")
            .matcher(engineFull == null ? "" : engineFull);
    return value.find() ? Long.parseLong(value.group(1)) : serverDefault;
  }
}
