package dev.pubsubclickhouse.messages.cdc;

import static dev.pubsubclickhouse.messages.MessageParameters.*;

import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How change events are written (PAYLOAD_FORMAT=debezium): each source table's ClickHouse table,
 * what a truncate does, and the epoch of the versions.
 *
 * @param tables source table name ({@code schema.table} or {@code db.table}) to its table
 * @param deadLetterTruncates CDC_TRUNCATE=dead_letter
 * @param marksTable CDC_TRUNCATE_MARKS_TABLE, where the truncates' marks are kept
 */
public record ChangeCapture(
    Map<String, TableName> tables,
    boolean deadLetterTruncates,
    int versionEpoch,
    TableName marksTable) {

  public ChangeCapture {
    tables = Collections.unmodifiableMap(new LinkedHashMap<>(tables));
  }

  /** Empty unless PAYLOAD_FORMAT=debezium. */
  public static Optional<ChangeCapture> read(ConfigReader config, String defaultDatabase) {
    String format = config.required(PAYLOAD_FORMAT).toLowerCase(Locale.ROOT);
    switch (format) {
      case "json" -> {
        if (config.optional(CDC_TABLES).isPresent()) {
          throw new ConfigurationException(CDC_TABLES, "needs PAYLOAD_FORMAT=debezium");
        }
        return Optional.empty();
      }
      case "debezium" -> {}
      default ->
          throw new ConfigurationException(
              PAYLOAD_FORMAT, "expected json or debezium, got '" + format + "'");
    }
    if (config.optional(CLICKHOUSE_TABLE_ATTRIBUTE).isPresent()) {
      throw new ConfigurationException(
          CLICKHOUSE_TABLE_ATTRIBUTE,
          "is refused with PAYLOAD_FORMAT=debezium: a change goes to its source table's"
              + " CDC_TABLES target");
    }
    Map<String, TableName> tables = new LinkedHashMap<>();
    for (String entry : config.optional(CDC_TABLES).orElse("").split(",")) {
      if (entry.isBlank()) {
        continue;
      }
      int equals = entry.indexOf('=');
      String source = equals < 0 ? "" : entry.substring(0, equals).trim();
      if (source.indexOf('.') <= 0 || source.endsWith(".")) {
        throw new ConfigurationException(
            CDC_TABLES,
            "expected source.table=target entries (e.g. public.orders=shop.orders), got '"
                + entry.trim()
                + "'");
      }
      TableName target;
      try {
        target = TableName.parse(entry.substring(equals + 1).trim(), defaultDatabase);
      } catch (IllegalArgumentException e) {
        throw new ConfigurationException(CDC_TABLES, e.getMessage());
      }
      if (tables.put(source, target) != null) {
        throw new ConfigurationException(CDC_TABLES, "names source table " + source + " twice");
      }
    }
    if (tables.isEmpty()) {
      throw new ConfigurationException(
          CDC_TABLES, "is required with PAYLOAD_FORMAT=debezium: map each source table");
    }
    String truncate = config.required(CDC_TRUNCATE).toLowerCase(Locale.ROOT);
    if (!truncate.equals("delete") && !truncate.equals("dead_letter")) {
      throw new ConfigurationException(
          CDC_TRUNCATE, "expected delete or dead_letter, got '" + truncate + "'");
    }
    TableName marksTable;
    try {
      marksTable = TableName.parse(config.required(CDC_TRUNCATE_MARKS_TABLE), defaultDatabase);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(CDC_TRUNCATE_MARKS_TABLE, e.getMessage());
    }
    if (tables.containsValue(marksTable)) {
      throw new ConfigurationException(
          CDC_TRUNCATE_MARKS_TABLE, "names " + marksTable + ", which is a CDC_TABLES target");
    }
    return Optional.of(
        new ChangeCapture(
            tables,
            truncate.equals("dead_letter"),
            config.integer(CDC_VERSION_EPOCH, 0, ChangeVersion.MAX_EPOCH),
            marksTable));
  }

  /** The source tables CDC_TABLES maps to {@code target}, in its order. */
  public List<String> sourcesOf(TableName target) {
    return tables.entrySet().stream()
        .filter(entry -> entry.getValue().equals(target))
        .map(Map.Entry::getKey)
        .toList();
  }

  /** The ClickHouse tables changes are written to, each once, in CDC_TABLES' order. */
  public List<TableName> targets() {
    return tables.values().stream().distinct().toList();
  }
}
