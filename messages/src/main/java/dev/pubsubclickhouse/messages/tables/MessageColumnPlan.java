package dev.pubsubclickhouse.messages.tables;

import com.clickhouse.data.ClickHouseColumn;
import dev.pubsubclickhouse.core.encode.FieldPath;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.ColumnPlanText;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.cdc.ChangeRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which part of a message fills each column of a table, and by what rule: the plan the push
 * service's {@code --check} prints. A column takes the row's field of its own name, or the path
 * COLUMN_MAPPING gives it; the {@code _pubsub_*} columns (and with change events the {@code __*}
 * columns) take the message's metadata; UNKNOWN_FIELDS_COLUMN takes the fields no other column
 * takes.
 */
public final class MessageColumnPlan {
  /** The heading of the column that names each column's source. */
  public static final String SOURCE_HEADING = "message field";

  private static final String REFUSED = "message refused (no DEFAULT, not Nullable)";

  private static final Map<String, String> METADATA_SOURCES =
      Map.of(
          MessageEncoder.MESSAGE_ID, "(messageId)",
          MessageEncoder.PUBLISH_TIME, "(publishTime)",
          MessageEncoder.ATTRIBUTES, "(attributes)",
          MessageEncoder.ORDERING_KEY, "(orderingKey)",
          MessageEncoder.SUBSCRIPTION, "(subscription)",
          MessageEncoder.DELIVERY_ATTEMPT, "(deliveryAttempt)",
          MessageEncoder.ROW_INDEX, "(row's index in the message)",
          MessageEncoder.INGESTED_AT, "(time of writing)");

  private MessageColumnPlan() {}

  /** The rows of {@code table}'s plan, in column order. */
  public static List<ColumnPlanText.Row> of(TargetTable table, TableMapping mapping) {
    TargetTable.Snapshot schema = table.current();
    Set<String> written = Set.copyOf(schema.encoder().columnNames());
    boolean changes = mapping.changeCapture().isPresent();
    List<ColumnPlanText.Row> rows = new ArrayList<>();
    for (ColumnDefinition column : schema.definitions()) {
      String name = column.name();
      if (!column.defaultKind().insertable()) {
        rows.add(row(column, "-", column.defaultKind() + ", computed by ClickHouse"));
      } else if (!written.contains(name)) {
        rows.add(
            row(
                column,
                "-",
                "a type the service does not write: DEFAULT " + column.defaultExpression()));
      } else if (METADATA_SOURCES.containsKey(name)) {
        rows.add(row(column, METADATA_SOURCES.get(name), "message metadata"));
      } else if (changes && ChangeRow.METADATA_COLUMNS.contains(name)) {
        rows.add(row(column, "(change event)", "change metadata (docs/cdc.md)"));
      } else if (mapping.unknownFieldsColumn().filter(name::equals).isPresent()) {
        rows.add(row(column, "(the other fields)", "one object of the fields no column takes"));
      } else {
        String absent = ColumnPlanText.whenAbsent(column).orElse(REFUSED);
        FieldPath path = mapping.columnSources().of(name);
        rows.add(
            row(
                column,
                path == null ? name : path.toString(),
                rule(column.parsed()) + "; absent: " + absent));
      }
    }
    return rows;
  }

  private static ColumnPlanText.Row row(ColumnDefinition column, String source, String how) {
    return new ColumnPlanText.Row(column.name(), column.type(), source, how);
  }

  /** The rule a JSON value follows into a column of this type (docs/types.md has them all). */
  static String rule(ClickHouseColumn column) {
    String rule =
        switch (column.getDataType()) {
          case Int8,
              Int16,
              Int32,
              Int64,
              Int128,
              Int256,
              UInt8,
              UInt16,
              UInt32,
              UInt64,
              UInt128,
              UInt256 ->
              "number or numeric string, range-checked";
          case Float32, Float64, BFloat16 -> "number or numeric string";
          case Decimal, Decimal32, Decimal64, Decimal128, Decimal256 ->
              "number or numeric string; digits beyond the scale cut toward zero,"
                  + " too many integer digits refused";
          case Bool -> "true/false, \"true\"/\"false\" or 0/1";
          case String -> "text as is; other JSON as its compact text";
          case FixedString -> "text of at most the column's bytes";
          case Date, Date32 -> "ISO-8601 date or days since 1970-01-01, range-checked";
          case DateTime, DateTime32, DateTime64 ->
              "ISO-8601 date-time, 'YYYY-MM-DD hh:mm:ss' or epoch seconds";
          case UUID -> "UUID text";
          case IPv4, IPv6 -> "address text";
          case Enum, Enum8, Enum16 -> "a name of the enum, or its number";
          case Array -> "JSON array (null: empty)";
          case Map -> "JSON object";
          case Tuple -> "JSON array, or object by element name";
          case JSON -> "JSON object, or a string holding one";
          default -> "its text form";
        };
    return column.isNullable() ? rule + ", or null" : rule;
  }
}
