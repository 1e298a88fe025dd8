package dev.pubsubclickhouse.messages.tables;

import static dev.pubsubclickhouse.messages.MessageParameters.*;

import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.encode.ColumnSources;
import dev.pubsubclickhouse.core.encode.FieldPath;
import dev.pubsubclickhouse.core.evolve.EvolutionPolicy;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.messages.cdc.ChangeCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How messages map onto tables: routing by attribute or by a change event's source table, schema
 * evolution, the column that keeps unknown fields, and the columns that take their values from a
 * path (COLUMN_MAPPING). Read from the configuration with {@link #read}, or built with {@link
 * #builder(TableName)}.
 *
 * @param tableAttribute the attribute that names a message's table; empty: every message goes to
 *     the default table
 * @param allowedTables the tables a message may name (the default table is always allowed)
 * @param evolution empty when SCHEMA_EVOLUTION=off
 * @param unknownFieldsColumn the column that receives the fields no other column takes
 * @param changeCapture with PAYLOAD_FORMAT=debezium, how change events map onto tables (their
 *     targets are then the allowed tables)
 * @param columnSources the columns mapped to a path, in every table that has them
 */
public record TableMapping(
    TableName defaultTable,
    Optional<String> tableAttribute,
    List<TableName> allowedTables,
    Optional<EvolutionPolicy> evolution,
    Optional<String> unknownFieldsColumn,
    Optional<ChangeCapture> changeCapture,
    ColumnSources columnSources) {

  public TableMapping {
    allowedTables = List.copyOf(allowedTables);
  }

  /** Every message to one table, as it is, unknown fields ignored. */
  public static TableMapping single(TableName table) {
    return builder(table).build();
  }

  /** Starts from {@link #single}: every message to {@code defaultTable}. */
  public static Builder builder(TableName defaultTable) {
    return new Builder(defaultTable);
  }

  /**
   * @param deadLetterTable CLICKHOUSE_DEAD_LETTER_TABLE, which no message may name: replay writes
   *     the rows of that table into their target under the message id each names
   */
  public static TableMapping read(
      ConfigReader config, TableName defaultTable, Optional<TableName> deadLetterTable) {
    Optional<ChangeCapture> changes = ChangeCapture.read(config, defaultTable.database());
    if (changes.isPresent() && config.optional(CLICKHOUSE_TABLES).isPresent()) {
      throw new ConfigurationException(
          CLICKHOUSE_TABLES,
          "is refused with PAYLOAD_FORMAT=debezium: the tables are CDC_TABLES' targets");
    }
    Optional<String> attribute = config.optional(CLICKHOUSE_TABLE_ATTRIBUTE);
    List<TableName> allowed = new ArrayList<>();
    changes.ifPresent(c -> allowed.addAll(c.targets()));
    for (String name : config.optional(CLICKHOUSE_TABLES).orElse("").split(",")) {
      if (!name.isBlank()) {
        try {
          allowed.add(TableName.parse(name.trim(), defaultTable.database()));
        } catch (IllegalArgumentException e) {
          throw new ConfigurationException(CLICKHOUSE_TABLES, e.getMessage());
        }
      }
    }
    if (deadLetterTable.isPresent() && allowed.contains(deadLetterTable.get())) {
      throw new ConfigurationException(
          changes.isPresent() ? CDC_TABLES : CLICKHOUSE_TABLES,
          "lists the dead-letter table "
              + deadLetterTable.get()
              + " (CLICKHOUSE_DEAD_LETTER_TABLE): a message naming it would write rows that"
              + " replay takes for dead letters");
    }
    if (attribute.isPresent() && allowed.isEmpty()) {
      throw new ConfigurationException(
          CLICKHOUSE_TABLES,
          "is required with CLICKHOUSE_TABLE_ATTRIBUTE: list the tables a message may name");
    }
    if (attribute.isEmpty() && !allowed.isEmpty() && changes.isEmpty()) {
      throw new ConfigurationException(
          CLICKHOUSE_TABLE_ATTRIBUTE, "is required with CLICKHOUSE_TABLES");
    }
    Optional<String> column = config.optional(UNKNOWN_FIELDS_COLUMN);
    ColumnSources sources = ColumnMapping.read(config);
    if (column.isPresent() && sources.of(column.get()) != null) {
      throw config.problem(
          COLUMN_MAPPING,
          "maps column '"
              + column.get()
              + "', the UNKNOWN_FIELDS_COLUMN, which the service fills with the unknown fields");
    }
    // The unknown fields replace that field of the row before any path is read.
    for (Map.Entry<String, FieldPath> pair : sources.paths().entrySet()) {
      if (column.isPresent() && column.get().equals(pair.getValue().firstField())) {
        throw config.problem(
            COLUMN_MAPPING,
            "maps column '"
                + pair.getKey()
                + "' to a path in '"
                + column.get()
                + "', the UNKNOWN_FIELDS_COLUMN, which the service fills with the unknown fields");
      }
    }
    return new TableMapping(
        defaultTable, attribute, allowed, evolution(config), column, changes, sources);
  }

  /**
   * Refuses schema evolution for a Distributed table: an ALTER of it changes it alone, not its
   * shards' tables, which would then refuse every INSERT naming the new column.
   *
   * @throws IllegalArgumentException naming the table and the setting
   */
  public void checkEvolvable(TargetTable table) {
    if (evolution.isPresent() && table.current().distributed()) {
      throw new IllegalArgumentException(
          "table "
              + table.name()
              + " is Distributed, and SCHEMA_EVOLUTION=add_columns cannot add a column to its"
              + " shards' tables: turn SCHEMA_EVOLUTION off, or add columns ON CLUSTER by hand");
    }
  }

  private static Optional<EvolutionPolicy> evolution(ConfigReader config) {
    String mode = config.required(SCHEMA_EVOLUTION).toLowerCase(Locale.ROOT);
    switch (mode) {
      case "off" -> {
        return Optional.empty();
      }
      case "add_columns" -> {}
      default ->
          throw new ConfigurationException(
              SCHEMA_EVOLUTION, "expected off or add_columns, got '" + mode + "'");
    }
    String fallback = config.required(SCHEMA_EVOLUTION_FALLBACK_TYPE);
    try {
      EvolutionPolicy.checkType(fallback);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(SCHEMA_EVOLUTION_FALLBACK_TYPE, e.getMessage());
    }
    try {
      return Optional.of(
          new EvolutionPolicy(
              fallback,
              config.integer(SCHEMA_EVOLUTION_MAX_NEW_COLUMNS, 0, 10_000),
              Duration.ofHours(1),
              config.integer(SCHEMA_EVOLUTION_MAX_TABLE_COLUMNS, 1, 100_000),
              config.optional(CLICKHOUSE_CLUSTER)));
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(CLICKHOUSE_CLUSTER, e.getMessage());
    }
  }

  /** Builds a {@link TableMapping}; what is not set is off, empty, or mapped by name. */
  public static final class Builder {
    private final TableName defaultTable;
    private Optional<String> tableAttribute = Optional.empty();
    private List<TableName> allowedTables = List.of();
    private Optional<EvolutionPolicy> evolution = Optional.empty();
    private Optional<String> unknownFieldsColumn = Optional.empty();
    private Optional<ChangeCapture> changeCapture = Optional.empty();
    private ColumnSources columnSources = ColumnSources.BY_NAME;

    private Builder(TableName defaultTable) {
      this.defaultTable = defaultTable;
    }

    public Builder tableAttribute(Optional<String> attribute) {
      this.tableAttribute = attribute;
      return this;
    }

    public Builder allowedTables(List<TableName> tables) {
      this.allowedTables = tables;
      return this;
    }

    public Builder evolution(Optional<EvolutionPolicy> evolution) {
      this.evolution = evolution;
      return this;
    }

    public Builder unknownFieldsColumn(Optional<String> column) {
      this.unknownFieldsColumn = column;
      return this;
    }

    public Builder changeCapture(Optional<ChangeCapture> changeCapture) {
      this.changeCapture = changeCapture;
      return this;
    }

    public Builder columnSources(ColumnSources sources) {
      this.columnSources = sources;
      return this;
    }

    public TableMapping build() {
      return new TableMapping(
          defaultTable,
          tableAttribute,
          allowedTables,
          evolution,
          unknownFieldsColumn,
          changeCapture,
          columnSources);
    }
  }
}
