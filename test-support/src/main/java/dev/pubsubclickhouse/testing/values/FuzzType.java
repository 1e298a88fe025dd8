package dev.pubsubclickhouse.testing.values;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** A ClickHouse column type the fuzz generates: its SQL and what the value rules need of it. */
public sealed interface FuzzType {
  String sql();

  /** Nullable(T) or LowCardinality(Nullable(T)): null and missing are NULL. */
  default boolean nullable() {
    return false;
  }

  record IntType(int bits, boolean signed) implements FuzzType {
    BigInteger min() {
      return signed ? BigInteger.ONE.shiftLeft(bits - 1).negate() : BigInteger.ZERO;
    }

    BigInteger max() {
      return signed
          ? BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE)
          : BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
    }

    @Override
    public String sql() {
      return (signed ? "Int" : "UInt") + bits;
    }
  }

  record FloatType(boolean single) implements FuzzType {
    @Override
    public String sql() {
      return single ? "Float32" : "Float64";
    }
  }

  /** Decimal(P, S), spelled as Decimal(P, S) or, where P is a width's maximum, DecimalN(S). */
  record DecimalType(int precision, int scale, boolean aliasSpelling) implements FuzzType {
    @Override
    public String sql() {
      if (aliasSpelling) {
        int bits =
            switch (precision) {
              case 9 -> 32;
              case 18 -> 64;
              case 38 -> 128;
              default -> 256;
            };
        return "Decimal" + bits + "(" + scale + ")";
      }
      return "Decimal(" + precision + ", " + scale + ")";
    }
  }

  record BoolType() implements FuzzType {
    @Override
    public String sql() {
      return "Bool";
    }
  }

  record StringType() implements FuzzType {
    @Override
    public String sql() {
      return "String";
    }
  }

  record FixedStringType(int length) implements FuzzType {
    @Override
    public String sql() {
      return "FixedString(" + length + ")";
    }
  }

  /** Date (days 0 to 65535) or Date32 (1900-01-01 to 2299-12-31). */
  record DateType(boolean wide) implements FuzzType {
    long minDay() {
      return wide ? -25_567 : 0;
    }

    long maxDay() {
      return wide ? 120_529 : 65_535;
    }

    @Override
    public String sql() {
      return wide ? "Date32" : "Date";
    }
  }

  /** DateTime or DateTime64(p); zone null: the column has none (text is read in UTC). */
  record DateTimeType(boolean wide, int precision, String zone) implements FuzzType {
    @Override
    public String sql() {
      String zoneArgument = zone == null ? "" : "'" + zone + "'";
      if (!wide) {
        return zone == null ? "DateTime" : "DateTime(" + zoneArgument + ")";
      }
      return "DateTime64(" + precision + (zone == null ? "" : ", " + zoneArgument) + ")";
    }
  }

  record UuidType() implements FuzzType {
    @Override
    public String sql() {
      return "UUID";
    }
  }

  record IpType(boolean v6) implements FuzzType {
    @Override
    public String sql() {
      return v6 ? "IPv6" : "IPv4";
    }
  }

  record EnumType(boolean wide, Map<String, Integer> values) implements FuzzType {
    @Override
    public String sql() {
      return (wide ? "Enum16(" : "Enum8(")
          + values.entrySet().stream()
              .map(e -> quote(e.getKey()) + " = " + e.getValue())
              .collect(Collectors.joining(", "))
          + ")";
    }

    private static String quote(String name) {
      return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
  }

  record NullableType(FuzzType inner) implements FuzzType {
    @Override
    public String sql() {
      return "Nullable(" + inner.sql() + ")";
    }

    @Override
    public boolean nullable() {
      return true;
    }
  }

  record LowCardinalityType(FuzzType inner) implements FuzzType {
    @Override
    public String sql() {
      return "LowCardinality(" + inner.sql() + ")";
    }

    @Override
    public boolean nullable() {
      return inner.nullable();
    }
  }

  record ArrayType(FuzzType element) implements FuzzType {
    @Override
    public String sql() {
      return "Array(" + element.sql() + ")";
    }
  }

  record MapType(FuzzType key, FuzzType value) implements FuzzType {
    @Override
    public String sql() {
      return "Map(" + key.sql() + ", " + value.sql() + ")";
    }
  }

  /** names is null for a tuple whose elements have none. */
  record TupleType(List<FuzzType> elements, List<String> names) implements FuzzType {
    @Override
    public String sql() {
      StringBuilder sql = new StringBuilder("Tuple(");
      for (int i = 0; i < elements.size(); i++) {
        if (i > 0) {
          sql.append(", ");
        }
        if (names != null) {
          sql.append(names.get(i)).append(' ');
        }
        sql.append(elements.get(i).sql());
      }
      return sql.append(')').toString();
    }
  }

  record JsonType() implements FuzzType {
    @Override
    public String sql() {
      return "JSON";
    }
  }
}
