package dev.pubsubclickhouse.core.errors;

import com.clickhouse.client.api.Client;
import com.clickhouse.data.ClickHouseDataType;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableNotFoundException;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ClickHouse error table: {@code (raw_message String, error_message String, stack_trace String,
 * failed_at DateTime)}. Its columns are checked when it is opened; other columns are allowed when
 * ClickHouse can fill them.
 */
public final class ErrorTable {
  private static final Map<String, Set<ClickHouseDataType>> REQUIRED =
      Map.of(
          "raw_message", Set.of(ClickHouseDataType.String),
          "error_message", Set.of(ClickHouseDataType.String),
          "stack_trace", Set.of(ClickHouseDataType.String),
          "failed_at", Set.of(ClickHouseDataType.DateTime, ClickHouseDataType.DateTime64));

  private final TableName table;
  private final RowEncoder encoder;
  private final ClickHouseInserter inserter;

  private ErrorTable(TableName table, RowEncoder encoder, ClickHouseInserter inserter) {
    this.table = table;
    this.encoder = encoder;
    this.inserter = inserter;
  }

  /** The DDL of an error table, for {@code CREATE_ERROR_TABLE=true} and the docs. */
  public static String createStatement(TableName table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table.quoted()
        + " (raw_message String, error_message String, stack_trace String, failed_at DateTime)"
        + " ENGINE = MergeTree ORDER BY failed_at";
  }

  /**
   * Checks the table and returns a writer for it.
   *
   * @throws IllegalStateException naming the table and what is wrong with it
   */
  public static ErrorTable open(
      Client client, TableName table, boolean createWhenMissing, ClickHouseInserter inserter) {
    SchemaReader reader = new SchemaReader(client);
    TableSchema schema;
    try {
      schema = reader.read(table);
    } catch (TableNotFoundException e) {
      if (!createWhenMissing) {
        throw new IllegalStateException(
            "error table " + table + " does not exist (create it, or set CREATE_ERROR_TABLE=true)");
      }
      try (var created = client.execute(createStatement(table)).get()) {
        // CREATE TABLE answers nothing worth reading.
      } catch (Exception createFailure) {
        throw new IllegalStateException(
            "cannot create error table " + table + ": " + createFailure.getMessage());
      }
      schema = reader.read(table);
    }
    List<ColumnDefinition> written = new ArrayList<>();
    for (ColumnDefinition column : schema.columns()) {
      Set<ClickHouseDataType> allowed = REQUIRED.get(column.name());
      if (allowed != null) {
        if (!allowed.contains(column.parsed().getDataType())) {
          throw new IllegalStateException(
              "error table "
                  + table
                  + ": column "
                  + column.name()
                  + " must be "
                  + (column.name().equals("failed_at") ? "DateTime" : "String")
                  + ", not "
                  + column.type());
        }
        written.add(column);
      } else if (!column.hasDefault() && !column.parsed().isNullable()) {
        throw new IllegalStateException(
            "error table "
                + table
                + ": column "
                + column.name()
                + " has no DEFAULT and is not Nullable, so error rows cannot fill it");
      }
    }
    for (String name : REQUIRED.keySet()) {
      if (schema.column(name).isEmpty()) {
        throw new IllegalStateException("error table " + table + " has no column " + name);
      }
    }
    return new ErrorTable(table, RowEncoder.forTable(new TableSchema(table, written)), inserter);
  }

  public TableName table() {
    return table;
  }

  /** Writes all records in one INSERT. */
  public void write(List<FailedRecord> records) throws InsertException, InterruptedException {
    RowBinaryOutput out = new RowBinaryOutput();
    for (FailedRecord record : records) {
      ObjectNode row = JsonNodeFactory.instance.objectNode();
      row.put("raw_message", record.rawMessage());
      row.put("error_message", record.errorMessage());
      row.put("stack_trace", record.stackTrace());
      row.put("failed_at", record.failedAt().toString());
      try {
        encoder.encode(row, out);
      } catch (RowRejectedException e) {
        throw new IllegalStateException("error row does not fit " + table + ": " + e.getMessage());
      }
    }
    inserter.insert(table, encoder.columnNames(), out, null, false);
  }
}
