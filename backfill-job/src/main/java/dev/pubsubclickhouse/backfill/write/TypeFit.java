package dev.pubsubclickhouse.backfill.write;

import com.clickhouse.data.ClickHouseColumn;
import com.clickhouse.data.ClickHouseDataType;
import com.google.cloud.bigquery.Field;
import com.google.cloud.bigquery.StandardSQLTypeName;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Whether a BigQuery field's values can fill a ClickHouse column, decided before any row is read
 * (DESIGN.md "Types": the ClickHouse column's type rules). The encoder checks each value again.
 */
public enum TypeFit {
  /** Every value fits. */
  EXACT,
  /** Values are checked one by one; a value that does not fit sends its row to the dead letters. */
  CHECKED,
  /** No value can fit: the job stops at start. */
  INCOMPATIBLE;

  private static final Set<ClickHouseDataType> INTEGERS =
      EnumSet.of(
          ClickHouseDataType.Int8,
          ClickHouseDataType.Int16,
          ClickHouseDataType.Int32,
          ClickHouseDataType.Int64,
          ClickHouseDataType.Int128,
          ClickHouseDataType.Int256,
          ClickHouseDataType.UInt8,
          ClickHouseDataType.UInt16,
          ClickHouseDataType.UInt32,
          ClickHouseDataType.UInt64,
          ClickHouseDataType.UInt128,
          ClickHouseDataType.UInt256);
  private static final Set<ClickHouseDataType> WIDE_SIGNED =
      EnumSet.of(ClickHouseDataType.Int64, ClickHouseDataType.Int128, ClickHouseDataType.Int256);
  private static final Set<ClickHouseDataType> FLOATS =
      EnumSet.of(ClickHouseDataType.Float32, ClickHouseDataType.Float64);
  private static final Set<ClickHouseDataType> DECIMALS =
      EnumSet.of(
          ClickHouseDataType.Decimal,
          ClickHouseDataType.Decimal32,
          ClickHouseDataType.Decimal64,
          ClickHouseDataType.Decimal128,
          ClickHouseDataType.Decimal256);
  private static final Set<ClickHouseDataType> DATES =
      EnumSet.of(ClickHouseDataType.Date, ClickHouseDataType.Date32);
  private static final Set<ClickHouseDataType> DATE_TIMES =
      EnumSet.of(
          ClickHouseDataType.DateTime,
          ClickHouseDataType.DateTime32,
          ClickHouseDataType.DateTime64);

  public static TypeFit of(Field field, ClickHouseColumn column) {
    return of(field, field.getMode() == Field.Mode.REPEATED, column);
  }

  private static TypeFit of(Field field, boolean repeated, ClickHouseColumn column) {
    ClickHouseDataType target = column.getDataType();
    if (target == ClickHouseDataType.SimpleAggregateFunction) {
      return of(field, repeated, column.getNestedColumns().get(0));
    }
    // Any value can be written as text: a String column takes its text (arrays and structs as
    // compact JSON), a JSON column parses it.
    if (target == ClickHouseDataType.String) {
      return EXACT;
    }
    StandardSQLTypeName type = field.getType().getStandardType();
    if (target == ClickHouseDataType.JSON) {
      return repeated || type == StandardSQLTypeName.STRUCT || type == StandardSQLTypeName.JSON
          ? EXACT
          : type == StandardSQLTypeName.STRING ? CHECKED : INCOMPATIBLE;
    }
    if (repeated) {
      return target == ClickHouseDataType.Array
          ? of(field, false, column.getNestedColumns().get(0))
          : INCOMPATIBLE;
    }
    return switch (type) {
      case INT64 ->
          WIDE_SIGNED.contains(target) || FLOATS.contains(target)
              ? EXACT
              : INTEGERS.contains(target)
                      || DECIMALS.contains(target)
                      || DATES.contains(target)
                      || DATE_TIMES.contains(target)
                      || target == ClickHouseDataType.Bool
                      || target == ClickHouseDataType.Enum8
                      || target == ClickHouseDataType.Enum16
                  ? CHECKED
                  : INCOMPATIBLE;
      case FLOAT64 ->
          target == ClickHouseDataType.Float64
              ? EXACT
              : FLOATS.contains(target)
                      || INTEGERS.contains(target)
                      || DECIMALS.contains(target)
                      || DATE_TIMES.contains(target)
                  ? CHECKED
                  : INCOMPATIBLE;
      case NUMERIC, BIGNUMERIC ->
          DECIMALS.contains(target) || INTEGERS.contains(target) || FLOATS.contains(target)
              ? CHECKED
              : INCOMPATIBLE;
      case BOOL -> target == ClickHouseDataType.Bool ? EXACT : INCOMPATIBLE;
      case STRING ->
          target == ClickHouseDataType.Array
                  || target == ClickHouseDataType.Tuple
                  || target == ClickHouseDataType.Map
                  || target == ClickHouseDataType.Nested
              ? INCOMPATIBLE
              : CHECKED;
      case BYTES -> target == ClickHouseDataType.FixedString ? CHECKED : INCOMPATIBLE;
      case DATE -> DATES.contains(target) || DATE_TIMES.contains(target) ? CHECKED : INCOMPATIBLE;
      case DATETIME, TIMESTAMP -> DATE_TIMES.contains(target) ? CHECKED : INCOMPATIBLE;
      case STRUCT -> struct(field, column);
      case TIME, GEOGRAPHY, JSON, INTERVAL, RANGE ->
          target == ClickHouseDataType.FixedString ? CHECKED : INCOMPATIBLE;
      default -> INCOMPATIBLE;
    };
  }

  /** A STRUCT fills a named Tuple by element name, or a Map by key. */
  private static TypeFit struct(Field field, ClickHouseColumn column) {
    if (column.getDataType() == ClickHouseDataType.Map) {
      return CHECKED;
    }
    if (column.getDataType() != ClickHouseDataType.Tuple) {
      return INCOMPATIBLE;
    }
    List<ClickHouseColumn> elements = column.getNestedColumns();
    TypeFit fit = EXACT;
    for (ClickHouseColumn element : elements) {
      Field sub =
          field.getSubFields().stream()
              .filter(f -> f.getName().equals(element.getColumnName()))
              .findFirst()
              .orElse(null);
      TypeFit elementFit;
      if (sub == null) {
        // A missing element is NULL, which only a Nullable element takes.
        elementFit = element.isNullable() ? EXACT : INCOMPATIBLE;
      } else {
        elementFit = of(sub, element);
        if (nullStruct(sub) && elementFit == EXACT && !takesNull(element)) {
          // A NULL struct is the tuple of its elements' NULLs: some rows may not fit.
          elementFit = CHECKED;
        }
      }
      if (elementFit.ordinal() > fit.ordinal()) {
        fit = elementFit;
      }
    }
    return fit;
  }

  private static boolean nullStruct(Field field) {
    return field.getType().getStandardType() == StandardSQLTypeName.STRUCT
        && (field.getMode() == null || field.getMode() == Field.Mode.NULLABLE);
  }

  /** Whether NULL fits the column: Nullable, or a Tuple of such. */
  private static boolean takesNull(ClickHouseColumn column) {
    return column.isNullable()
        || (column.getDataType() == ClickHouseDataType.Tuple
            && column.getNestedColumns().stream().allMatch(TypeFit::takesNull));
  }
}
