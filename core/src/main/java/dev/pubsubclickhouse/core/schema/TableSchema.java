package dev.pubsubclickhouse.core.schema;

import java.util.List;
import java.util.Optional;

/** The columns of one table, in table order. */
public record TableSchema(TableName table, List<ColumnDefinition> columns) {
  public TableSchema {
    columns = List.copyOf(columns);
  }

  public Optional<ColumnDefinition> column(String name) {
    return columns.stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
