package dev.pubsubclickhouse.core.encode;

import com.clickhouse.data.ClickHouseColumn;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/** The one place that maps ClickHouse types to encoders. */
final class ValueEncoders {
  private static final ValueEncoder STRING = new StringEncoder();

  private ValueEncoders() {}

  static ValueEncoder forColumn(ClickHouseColumn column) throws UnsupportedTypeException {
    ValueEncoder base = forType(column);
    return column.isNullable() ? new NullableEncoder(base) : base;
  }

  /** True when the type holds a JSON column anywhere inside it. */
  static boolean containsJson(ClickHouseColumn column) {
    if (column.getDataType() == com.clickhouse.data.ClickHouseDataType.JSON) {
      return true;
    }
    for (ClickHouseColumn nested : column.getNestedColumns()) {
      if (containsJson(nested)) {
        return true;
      }
    }
    return false;
  }

  private static ValueEncoder forType(ClickHouseColumn column) throws UnsupportedTypeException {
    return switch (column.getDataType()) {
      case Int8 -> IntegerEncoder.signed(8);
      case Int16 -> IntegerEncoder.signed(16);
      case Int32 -> IntegerEncoder.signed(32);
      case Int64 -> IntegerEncoder.signed(64);
      case Int128 -> IntegerEncoder.signed(128);
      case Int256 -> IntegerEncoder.signed(256);
      case UInt8 -> IntegerEncoder.unsigned(8);
      case UInt16 -> IntegerEncoder.unsigned(16);
      case UInt32 -> IntegerEncoder.unsigned(32);
      case UInt64 -> IntegerEncoder.unsigned(64);
      case UInt128 -> IntegerEncoder.unsigned(128);
      case UInt256 -> IntegerEncoder.unsigned(256);
      case Float32 -> new FloatEncoder(true);
      case Float64 -> new FloatEncoder(false);
      case Decimal, Decimal32, Decimal64, Decimal128, Decimal256 ->
          new DecimalEncoder(column.getPrecision(), column.getScale());
      case Bool -> new BoolEncoder();
      case String -> STRING;
      case JSON -> new JsonObjectEncoder();
      case FixedString -> new FixedStringEncoder(column.getPrecision());
      case Date -> new DateEncoder(false);
      case Date32 -> new DateEncoder(true);
      case DateTime, DateTime32 -> DateTimeEncoder.dateTime(zone(column));
      case DateTime64 -> DateTimeEncoder.dateTime64(column.getScale(), zone(column));
      case UUID -> new UuidEncoder();
      case IPv4 -> new IpAddressEncoder(false);
      case IPv6 -> new IpAddressEncoder(true);
      case Enum8, Enum16 -> enumEncoder(column);
      case Array -> new ArrayEncoder(forColumn(column.getNestedColumns().get(0)));
      case Map -> new MapEncoder(forColumn(column.getKeyInfo()), forColumn(column.getValueInfo()));
      case Tuple -> tupleEncoder(column.getNestedColumns());
      case Nested -> new ArrayEncoder(tupleEncoder(column.getNestedColumns()));
      case SimpleAggregateFunction -> forColumn(column.getNestedColumns().get(0));
      default -> throw new UnsupportedTypeException(column.getOriginalTypeName());
    };
  }

  private static ValueEncoder enumEncoder(ClickHouseColumn column) {
    EnumDefinition definition = EnumDefinition.parse(column.getOriginalTypeName());
    return new EnumEncoder(
        definition.names(),
        definition.numbers(),
        column.getDataType() == com.clickhouse.data.ClickHouseDataType.Enum16);
  }

  /**
   * A tuple is named when every element has a name; client-v2 gives the elements of an unnamed
   * tuple an empty one.
   */
  private static ValueEncoder tupleEncoder(List<ClickHouseColumn> elements)
      throws UnsupportedTypeException {
    List<ValueEncoder> encoders = new ArrayList<>(elements.size());
    List<String> names = new ArrayList<>(elements.size());
    boolean named = true;
    for (ClickHouseColumn element : elements) {
      encoders.add(forColumn(element));
      names.add(element.getColumnName());
      named &= element.getColumnName() != null && !element.getColumnName().isEmpty();
    }
    return new TupleEncoder(encoders, named ? names : null);
  }

  private static ZoneId zone(ClickHouseColumn column) {
    return column.hasTimeZone() ? column.getTimeZone().toZoneId().normalized() : ZoneOffset.UTC;
  }

  /** A type the encoder cannot write. */
  static final class UnsupportedTypeException extends Exception {
    UnsupportedTypeException(String type) {
      super(type);
    }
  }
}
