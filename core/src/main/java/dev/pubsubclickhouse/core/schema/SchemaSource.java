package dev.pubsubclickhouse.core.schema;

/** Where a table's columns are read from: ClickHouse's {@code system.columns} in production. */
public interface SchemaSource {
  /**
   * @throws TableNotFoundException when the table does not exist
   */
  TableSchema read(TableName table);
}
