package dev.pubsubclickhouse.backfill.write;

import com.google.cloud.bigquery.Field;
import com.google.cloud.bigquery.FieldList;
import com.google.cloud.bigquery.Schema;
import com.google.cloud.bigquery.StandardSQLTypeName;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.DefaultKind;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The ClickHouse table made from a BigQuery schema ({@code --createTable}): one column per field,
 * of the type every value of the field fits as the column plan maps it (INT64 Int64, FLOAT64
 * Float64, NUMERIC Decimal(38, 9), BIGNUMERIC Decimal(76, 38), BOOL Bool, DATE Date32, DATETIME
 * DateTime64(6), TIMESTAMP DateTime64(6, 'UTC'), STRING, BYTES, JSON, GEOGRAPHY, TIME, INTERVAL and
 * RANGE String, ARRAY Array, STRUCT a named Tuple); NULLABLE fields are Nullable, except arrays and
 * structs, which ClickHouse does not make Nullable by default (a NULL array is empty; a NULL struct
 * takes the column's DEFAULT, a tuple of NULLs, empty arrays and such tuples). A MergeTree ordered
 * by the user's ORDER BY, or by the first REQUIRED time field, else the first REQUIRED INT64 or
 * STRING field, else {@code tuple()}.
 */
public final class TableDefinition {
  private TableDefinition() {}

  /** {@code CREATE TABLE IF NOT EXISTS ...}. */
  public static String createStatement(TableName table, Schema schema, Optional<String> orderBy) {
    StringBuilder sql =
        new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(table.quoted()).append("\n(\n");
    FieldList fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      sql.append("    ")
          .append(TableName.quoteIdentifier(field.getName()))
          .append(' ')
          .append(columnType(field))
          .append(nullStruct(field).map(d -> " DEFAULT " + d).orElse(""))
          .append(i + 1 < fields.size() ? ",\n" : "\n");
    }
    sql.append(")\nENGINE = MergeTree\nORDER BY ")
        .append(orderBy.orElseGet(() -> defaultOrderBy(fields)))
        .append('\n');
    if (orderBy.isPresent()) {
      // BigQuery fields are NULLABLE unless declared REQUIRED; the user's key may name them.
      sql.append("SETTINGS allow_nullable_key = 1\n");
    }
    return sql.toString();
  }

  /** The table as ClickHouse would describe it once created: for the dry run's column plan. */
  public static TableSchema schemaOf(TableName table, Schema schema) {
    List<ColumnDefinition> columns = new ArrayList<>();
    for (Field field : schema.getFields()) {
      columns.add(
          nullStruct(field)
              .map(
                  d ->
                      ColumnDefinition.of(
                          field.getName(), columnType(field), DefaultKind.DEFAULT, d))
              .orElseGet(() -> ColumnDefinition.of(field.getName(), columnType(field))));
    }
    return new TableSchema(table, columns);
  }

  /** The ClickHouse type of a field, mode included. */
  public static String columnType(Field field) {
    String type = valueType(field);
    if (field.getMode() == Field.Mode.REPEATED) {
      return "Array(" + type + ")";
    }
    boolean nullable = field.getMode() == null || field.getMode() == Field.Mode.NULLABLE;
    return nullable && !type.startsWith("Tuple(") ? "Nullable(" + type + ")" : type;
  }

  /**
   * A NULLABLE STRUCT's column is a Tuple, which ClickHouse does not make Nullable by default: its
   * DEFAULT, the tuple of its elements' empty values, stands for a NULL struct.
   */
  private static Optional<String> nullStruct(Field field) {
    boolean nullable = field.getMode() == null || field.getMode() == Field.Mode.NULLABLE;
    if (!nullable || field.getType().getStandardType() != StandardSQLTypeName.STRUCT) {
      return Optional.empty();
    }
    return Optional.of(emptyValue(field));
  }

  /**
   * A struct element's value in a NULL struct, as {@link #struct} types it: an empty array, a tuple
   * of its own elements' empty values, else NULL.
   */
  private static String emptyValue(Field field) {
    if (field.getMode() == Field.Mode.REPEATED) {
      return "[]";
    }
    if (field.getType().getStandardType() != StandardSQLTypeName.STRUCT) {
      return "NULL";
    }
    List<String> elements = new ArrayList<>();
    for (Field element : field.getSubFields()) {
      elements.add(emptyValue(element));
    }
    return "tuple(" + String.join(", ", elements) + ")";
  }

  private static String valueType(Field field) {
    StandardSQLTypeName type = field.getType().getStandardType();
    return switch (type) {
      case INT64 -> "Int64";
      case FLOAT64 -> "Float64";
      case NUMERIC -> "Decimal(38, 9)";
      case BIGNUMERIC -> "Decimal(76, 38)";
      case BOOL -> "Bool";
      case DATE -> "Date32";
      case DATETIME -> "DateTime64(6)";
      case TIMESTAMP -> "DateTime64(6, 'UTC')";
      case STRUCT -> struct(field.getSubFields());
      default -> "String";
    };
  }

  private static String struct(FieldList fields) {
    List<String> elements = new ArrayList<>();
    for (Field field : fields) {
      String type = valueType(field);
      if (field.getMode() == Field.Mode.REPEATED) {
        type = "Array(" + type + ")";
      } else if (!type.startsWith("Tuple(")) {
        // An element of a NULL struct is NULL, so every scalar element is Nullable.
        type = "Nullable(" + type + ")";
      }
      // BigQuery field names are letters, digits and underscores: no quoting needed.
      elements.add(field.getName() + " " + type);
    }
    return "Tuple(" + String.join(", ", elements) + ")";
  }

  private static String defaultOrderBy(FieldList fields) {
    for (List<StandardSQLTypeName> preferred :
        List.of(
            List.of(
                StandardSQLTypeName.TIMESTAMP,
                StandardSQLTypeName.DATETIME,
                StandardSQLTypeName.DATE),
            List.of(StandardSQLTypeName.INT64, StandardSQLTypeName.STRING))) {
      for (Field field : fields) {
        if (field.getMode() == Field.Mode.REQUIRED
            && preferred.contains(field.getType().getStandardType())) {
          return TableName.quoteIdentifier(field.getName());
        }
      }
    }
    return "tuple()";
  }
}
