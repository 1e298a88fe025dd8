package dev.pubsubclickhouse.core.schema;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads a table's columns from {@code system.columns} and its engine from {@code system.tables}.
 */
public final class SchemaReader implements SchemaSource {
  private static final String COLUMNS_QUERY =
      "SELECT name, type, default_kind, default_expression,"
          + " (SELECT any(engine) FROM system.tables"
          + " WHERE database = {database:String} AND name = {table:String}) AS engine"
          + " FROM system.columns"
          + " WHERE database = {database:String} AND table = {table:String} ORDER BY position";

  private final Client client;

  public SchemaReader(Client client) {
    this.client = client;
  }

  @Override
  public TableSchema read(TableName table) {
    List<GenericRecord> rows =
        client.queryAll(
            COLUMNS_QUERY, Map.of("database", table.database(), "table", table.table()));
    if (rows.isEmpty()) {
      throw new TableNotFoundException(table);
    }
    List<ColumnDefinition> columns = new ArrayList<>(rows.size());
    for (GenericRecord row : rows) {
      columns.add(
          ColumnDefinition.of(
              row.getString("name"),
              row.getString("type"),
              DefaultKind.of(row.getString("default_kind")),
              row.getString("default_expression")));
    }
    return new TableSchema(table, columns, rows.get(0).getString("engine"));
  }
}
