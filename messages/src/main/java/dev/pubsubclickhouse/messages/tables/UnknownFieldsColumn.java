package dev.pubsubclickhouse.messages.tables;

import com.clickhouse.data.ClickHouseColumn;
import com.clickhouse.data.ClickHouseDataType;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.write.TargetTable;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The column that keeps unknown fields: one object of every field no other column takes. It must
 * hold an object whole: String (the object's JSON text), JSON, or a Map from String to String or
 * JSON (each field's value as text, or as JSON).
 */
public final class UnknownFieldsColumn {
  private static final Set<ClickHouseDataType> MAP_VALUES =
      Set.of(ClickHouseDataType.String, ClickHouseDataType.JSON);

  private UnknownFieldsColumn() {}

  /**
   * Checks the configured column in a table just read; a table without it ignores unknown fields,
   * which is logged once.
   *
   * @throws IllegalArgumentException when the table's column cannot hold an object
   */
  public static void check(TableMapping mapping, TargetTable table) {
    Optional<String> name = mapping.unknownFieldsColumn();
    if (name.isEmpty()) {
      return;
    }
    Optional<ColumnDefinition> column =
        table.current().definitions().stream().filter(c -> c.name().equals(name.get())).findFirst();
    if (column.isEmpty() || !table.current().columns().contains(name.get())) {
      JsonLog.info(
          "table has no column for unknown fields; they are ignored there",
          Map.of("table", table.name().toString(), "column", name.get()));
      return;
    }
    if (!holdsAnObject(column.get().parsed())) {
      throw new IllegalArgumentException(
          "column '"
              + name.get()
              + "' of "
              + table.name()
              + " has type "
              + column.get().type()
              + ", which cannot hold unknown fields (UNKNOWN_FIELDS_COLUMN): use String, JSON or"
              + " Map(String, String)");
    }
  }

  private static boolean holdsAnObject(ClickHouseColumn column) {
    return switch (column.getDataType()) {
      case String, JSON -> true;
      case Map ->
          column.getKeyInfo().getDataType() == ClickHouseDataType.String
              && MAP_VALUES.contains(column.getValueInfo().getDataType());
      default -> false;
    };
  }
}
