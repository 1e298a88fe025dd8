package dev.pubsubclickhouse.testing.values;

import dev.pubsubclickhouse.testing.values.FuzzType.ArrayType;
import dev.pubsubclickhouse.testing.values.FuzzType.BoolType;
import dev.pubsubclickhouse.testing.values.FuzzType.DateTimeType;
import dev.pubsubclickhouse.testing.values.FuzzType.DateType;
import dev.pubsubclickhouse.testing.values.FuzzType.DecimalType;
import dev.pubsubclickhouse.testing.values.FuzzType.EnumType;
import dev.pubsubclickhouse.testing.values.FuzzType.FixedStringType;
import dev.pubsubclickhouse.testing.values.FuzzType.FloatType;
import dev.pubsubclickhouse.testing.values.FuzzType.IntType;
import dev.pubsubclickhouse.testing.values.FuzzType.IpType;
import dev.pubsubclickhouse.testing.values.FuzzType.JsonType;
import dev.pubsubclickhouse.testing.values.FuzzType.LowCardinalityType;
import dev.pubsubclickhouse.testing.values.FuzzType.MapType;
import dev.pubsubclickhouse.testing.values.FuzzType.NullableType;
import dev.pubsubclickhouse.testing.values.FuzzType.StringType;
import dev.pubsubclickhouse.testing.values.FuzzType.TupleType;
import dev.pubsubclickhouse.testing.values.FuzzType.UuidType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Random column types over every type of the README's table, nested up to three levels. */
public final class TypeGenerator {
  /**
   * Zones with whole-hour, half-hour and 45-minute offsets, both hemispheres' daylight saving (Lord
   * Howe's is 30 minutes, Dublin's is "negative"), the date line, and a zone whose changes fall at
   * midnight.
   */
  static final List<String> ZONES =
      List.of(
          "UTC",
          "Europe/Berlin",
          "America/New_York",
          "Asia/Tokyo",
          "Asia/Kolkata",
          "Asia/Kathmandu",
          "Australia/Lord_Howe",
          "Pacific/Chatham",
          "America/St_Johns",
          "Pacific/Kiritimati",
          "Pacific/Pago_Pago",
          "Europe/Dublin",
          "America/Sao_Paulo",
          "Australia/Adelaide",
          "Etc/GMT+12");

  private static final List<String> ENUM_NAMES =
      List.of(
          "a",
          "b",
          "INFO",
          "WARN",
          "it's",
          "a,b",
          "x y",
          "\u00e9t\u00e9",
          "back\\slash",
          "1",
          "-7",
          "",
          "\u65e5\u672c",
          "tab\there",
          "q\"uote",
          "=",
          "true",
          "NULL");

  private final Random random;

  public TypeGenerator(Random random) {
    this.random = random;
  }

  /** A column's type: mostly scalars, some wrapped or nested. */
  public FuzzType column() {
    int pick = random.nextInt(100);
    if (pick < 62) {
      return scalar();
    }
    if (pick < 74) {
      return new NullableType(scalar());
    }
    if (pick < 79) {
      return lowCardinality();
    }
    if (pick < 88) {
      return new ArrayType(nested(1));
    }
    if (pick < 94) {
      return map(1);
    }
    if (pick < 98) {
      return tuple(1);
    }
    return new JsonType();
  }

  private FuzzType nested(int depth) {
    int pick = random.nextInt(depth >= 3 ? 70 : 100);
    if (pick < 50) {
      return scalar();
    }
    if (pick < 65) {
      return new NullableType(scalar());
    }
    if (pick < 70) {
      return lowCardinality();
    }
    if (pick < 80) {
      return new ArrayType(nested(depth + 1));
    }
    if (pick < 90) {
      return map(depth + 1);
    }
    return tuple(depth + 1);
  }

  FuzzType scalar() {
    return switch (random.nextInt(17)) {
      case 0, 1 -> integer();
      case 2 -> new FloatType(random.nextBoolean());
      case 3, 4 -> decimal();
      case 5 -> new BoolType();
      case 6 -> new StringType();
      case 7 -> new FixedStringType(1 + random.nextInt(random.nextBoolean() ? 4 : 40));
      case 8 -> new DateType(random.nextBoolean());
      case 9, 10 -> new DateTimeType(false, 0, zone());
      case 11, 12, 13 -> new DateTimeType(true, random.nextInt(10), zone());
      case 14 -> new UuidType();
      case 15 -> new IpType(random.nextBoolean());
      default -> enumType();
    };
  }

  private IntType integer() {
    int[] widths = {8, 16, 32, 64, 128, 256};
    return new IntType(widths[random.nextInt(widths.length)], random.nextBoolean());
  }

  private DecimalType decimal() {
    if (random.nextInt(4) == 0) {
      int[] precisions = {9, 18, 38, 76};
      int precision = precisions[random.nextInt(precisions.length)];
      return new DecimalType(precision, random.nextInt(precision + 1), true);
    }
    int precision = 1 + random.nextInt(76);
    return new DecimalType(precision, random.nextInt(precision + 1), false);
  }

  private String zone() {
    return random.nextInt(5) == 0 ? null : ZONES.get(random.nextInt(ZONES.size()));
  }

  private EnumType enumType() {
    boolean wide = random.nextBoolean();
    int count = 1 + random.nextInt(6);
    List<String> names = new ArrayList<>(ENUM_NAMES);
    java.util.Collections.shuffle(names, random);
    Map<String, Integer> values = new LinkedHashMap<>();
    java.util.Set<Integer> used = new java.util.HashSet<>();
    for (String name : names.subList(0, count)) {
      int value;
      do {
        value = edgeOrRandomEnumValue(wide);
      } while (!used.add(value));
      values.put(name, value);
    }
    return new EnumType(wide, values);
  }

  private int edgeOrRandomEnumValue(boolean wide) {
    int min = wide ? Short.MIN_VALUE : Byte.MIN_VALUE;
    int max = wide ? Short.MAX_VALUE : Byte.MAX_VALUE;
    return switch (random.nextInt(5)) {
      case 0 -> min;
      case 1 -> max;
      case 2 -> random.nextInt(5) - 2;
      default -> min + random.nextInt(max - min + 1);
    };
  }

  /** LowCardinality of what it takes: strings, dates and numbers, or Nullable of those. */
  private FuzzType lowCardinality() {
    FuzzType inner =
        switch (random.nextInt(6)) {
          case 0, 1 -> new StringType();
          case 2 -> new FixedStringType(1 + random.nextInt(8));
          case 3 -> new DateType(false);
          case 4 -> new DateTimeType(false, 0, zone());
          default -> integer();
        };
    return new LowCardinalityType(random.nextBoolean() ? new NullableType(inner) : inner);
  }

  /**
   * Map keys: any scalar but Bool (a Nullable key is not allowed), LowCardinality(String) too.
   * ClickHouse's JSON parser cannot read a Bool key (it reads the quoted key as a Bool value and
   * refuses the quote), so there would be nothing to compare with.
   */
  private MapType map(int depth) {
    FuzzType key = random.nextInt(6) == 0 ? new LowCardinalityType(new StringType()) : scalar();
    while (key instanceof BoolType) {
      key = scalar();
    }
    return new MapType(key, nested(depth));
  }

  private TupleType tuple(int depth) {
    int count = 1 + random.nextInt(4);
    List<FuzzType> elements = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      elements.add(nested(depth));
    }
    if (random.nextBoolean()) {
      return new TupleType(elements, null);
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      names.add(List.of("a", "b", "c", "d").get(i) + (random.nextBoolean() ? "" : "_" + i));
    }
    return new TupleType(elements, names);
  }
}
