package dev.pubsubclickhouse.testing.values;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
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
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Random JSON values for a column type: mostly ordinary values across the type's whole range, often
 * at its limits and just beyond them, in every form the rules read, and sometimes not of the type
 * at all. Numbers that must keep their spelling ("4.2e1", "-0.0") are raw JSON text.
 */
public final class ValueGenerator {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final BigInteger TWO = BigInteger.valueOf(2);
  private static final DateTimeFormatter SPACED =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss", Locale.ROOT);
  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);

  /** How often a value is drawn from beyond its type: out of range, malformed, or not of it. */
  private static final double EDGE_RATE = 0.025;

  private final Random random;

  /** Whether the value being drawn is an edge one; drawn anew for every value. */
  private boolean edge;

  public ValueGenerator(Random random) {
    this.random = random;
  }

  /**
   * A roll of 0 to 99 for the branches of a type's generator: below {@code plainUpTo} the ordinary
   * ones (values across the range, at its limits, in every accepted form), from it on the edge
   * ones.
   */
  private int roll(int plainUpTo) {
    return edge ? plainUpTo + random.nextInt(100 - plainUpTo) : random.nextInt(plainUpTo);
  }

  private boolean chance(double p) {
    return random.nextDouble() < p;
  }

  @SafeVarargs
  private <T> T pick(T... options) {
    return options[random.nextInt(options.length)];
  }

  private static JsonNode raw(String jsonLiteral) {
    return NODES.rawValueNode(new RawValue(jsonLiteral));
  }

  /** A value for a column of {@code type}. */
  public JsonNode value(FuzzType type) {
    edge = chance(EDGE_RATE);
    if (edge && chance(0.1)) {
      return otherKind();
    }
    if (type instanceof NullableType nullable) {
      return chance(0.1) ? NODES.nullNode() : value(nullable.inner());
    }
    if (type instanceof LowCardinalityType lowCardinality) {
      return value(lowCardinality.inner());
    }
    if (type instanceof IntType t) {
      return integer(t);
    }
    if (type instanceof FloatType t) {
      return floating(t);
    }
    if (type instanceof DecimalType t) {
      return decimal(t);
    }
    if (type instanceof BoolType) {
      return bool();
    }
    if (type instanceof StringType) {
      if (edge) {
        return NODES.textNode(withLoneSurrogate(text(20)));
      }
      return chance(0.9) ? NODES.textNode(text(40)) : otherKind();
    }
    if (type instanceof FixedStringType t) {
      return fixedString(t);
    }
    if (type instanceof DateType t) {
      return date(t);
    }
    if (type instanceof DateTimeType t) {
      return dateTime(t);
    }
    if (type instanceof UuidType) {
      return uuid();
    }
    if (type instanceof IpType t) {
      return t.v6() ? ipv6() : ipv4();
    }
    if (type instanceof EnumType t) {
      return enumValue(t);
    }
    if (type instanceof ArrayType t) {
      return array(t);
    }
    if (type instanceof MapType t) {
      return map(t);
    }
    if (type instanceof TupleType t) {
      return tuple(t);
    }
    if (type instanceof JsonType) {
      if (edge) {
        return chance(0.5)
            ? otherKind()
            : NODES.textNode(pick("[1,2]", "5", "\"x\"", "{\"a\":1} x", "{", ""));
      }
      // BigQuery's JSON values arrive as the text of an object.
      return chance(0.15) ? NODES.textNode(JsonText.write(jsonObject(0))) : jsonObject(0);
    }
    throw new IllegalArgumentException(type.sql());
  }

  /** A JSON value of any kind, for a column it does not fit (or a String, which takes it). */
  JsonNode otherKind() {
    return switch (random.nextInt(9)) {
      case 0 -> NODES.booleanNode(random.nextBoolean());
      case 1 -> raw(pick("1e3", "123.50", "-0.0", "0.1e1", "12345678901234567890123", "-7"));
      case 2 -> NODES.numberNode(random.nextLong());
      case 3 -> NODES.textNode(pick("", " ", "null", "true", "[]", "{}", "\u0661\u0662"));
      case 4 -> NODES.arrayNode().add(random.nextInt(10)).add(text(5));
      case 5 -> NODES.arrayNode();
      case 6 -> NODES.objectNode();
      case 7 -> jsonObject(1);
      default -> NODES.textNode(text(12));
    };
  }

  // ---- text ----

  /** Text of up to about {@code maxLength} characters from many scripts and hazards. */
  String text(int maxLength) {
    int length = chance(0.01) ? 500 + random.nextInt(3000) : random.nextInt(maxLength + 1);
    StringBuilder text = new StringBuilder();
    boolean ascii = chance(0.5);
    for (int i = 0; i < length; i++) {
      if (ascii) {
        text.append((char) (0x20 + random.nextInt(0x5F)));
        continue;
      }
      switch (random.nextInt(12)) {
        case 0 -> text.append((char) random.nextInt(0x20)); // control characters, NUL
        case 1 -> text.appendCodePoint(0x1F300 + random.nextInt(0x300)); // emoji: surrogate pairs
        case 2 -> text.append(pick("'", "\"", "\\", "`", "/", "\u007f", "\u2028", "\ufeff"));
        case 3 -> text.appendCodePoint(0x4E00 + random.nextInt(0x5000)); // CJK
        case 4 -> text.appendCodePoint(0x00A0 + random.nextInt(0x160)); // Latin-1, Latin A/B
        case 5 -> text.appendCodePoint(0x0590 + random.nextInt(0x200)); // Hebrew, Arabic
        case 6 -> text.append(pick("\ufffd", "\uffff", "\u0301", "\u200d"));
        case 7 -> text.appendCodePoint(0x10000 + random.nextInt(0xFFFF)); // a surrogate pair
        default -> text.append((char) ('a' + random.nextInt(26)));
      }
    }
    return text.toString();
  }

  /** The text with a surrogate that has no other half somewhere in it. */
  private String withLoneSurrogate(String text) {
    int at = random.nextInt(text.length() + 1);
    char lone = (char) (0xD800 + random.nextInt(0x800));
    return text.substring(0, at) + lone + text.substring(at);
  }

  private JsonNode fixedString(FixedStringType type) {
    if (edge) {
      return switch (random.nextInt(4)) {
        case 0 -> otherKind();
        case 1 -> NODES.textNode(withLoneSurrogate(""));
        default -> NODES.textNode("x".repeat(type.length() + 1 + random.nextInt(2)));
      };
    }
    if (chance(0.4)) {
      // Exactly N bytes: ASCII, or two-byte characters where N is even.
      int bytes = type.length();
      boolean wide = chance(0.3) && bytes % 2 == 0;
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < (wide ? bytes / 2 : bytes); i++) {
        text.append(
            wide ? (char) (0xC0 + random.nextInt(0x40)) : (char) ('a' + random.nextInt(26)));
      }
      return NODES.textNode(text.toString());
    }
    String text = text(type.length());
    while (text.getBytes(StandardCharsets.UTF_8).length > type.length()) {
      text = text.substring(0, text.length() / 2);
    }
    return NODES.textNode(text);
  }

  // ---- numbers ----

  /** A random integer of up to {@code bits} bits, sizes spread evenly. */
  private BigInteger randomInteger(int bits) {
    return new BigInteger(random.nextInt(bits + 1), random);
  }

  private JsonNode integer(IntType type) {
    int roll = roll(85);
    BigInteger min = type.min();
    BigInteger max = type.max();
    if (roll < 70) {
      BigInteger magnitude = randomInteger(type.signed() ? type.bits() - 1 : type.bits());
      BigInteger value = type.signed() && random.nextBoolean() ? magnitude.negate() : magnitude;
      return integerForm(value.max(min).min(max), false);
    }
    if (roll < 85) {
      BigInteger edge =
          pick(
              min,
              max,
              BigInteger.ZERO,
              BigInteger.ONE,
              min.add(BigInteger.ONE),
              max.subtract(BigInteger.ONE));
      return integerForm(edge, true);
    }
    if (roll < 95) {
      BigInteger beyond =
          pick(
              max.add(BigInteger.ONE),
              min.subtract(BigInteger.ONE),
              max.multiply(TWO),
              BigInteger.ONE.shiftLeft(type.bits()),
              BigInteger.ONE.shiftLeft(type.bits()).negate(),
              BigInteger.ONE.shiftLeft(type.bits() + 1).add(BigInteger.ONE));
      return chance(0.7)
          ? integerForm(beyond, true)
          : raw(pick("1e30", "-1e100", "1.5", "-0.5", "1e-5", "4.2", "1E400"));
    }
    return pick(
        NODES.textNode(pick("", " 1", "1 ", "0x10", "1_000", "\u0661\u0662", "NaN", "Infinity")),
        NODES.textNode(pick("1e", "--1", "+-1", "1..2", "1.5", "1e999999999", "+", ".")),
        NODES.booleanNode(random.nextBoolean()),
        NODES.arrayNode().add(1),
        NODES.objectNode().put("a", 1));
  }

  /** An integer as a JSON number or numeric text, in one of the spellings the rules read. */
  private JsonNode integerForm(BigInteger value, boolean unusual) {
    if (!unusual || chance(0.5)) {
      return chance(0.8) ? NODES.numberNode(value) : NODES.textNode(value.toString());
    }
    String digits = value.toString();
    return switch (random.nextInt(6)) {
      case 0 -> raw(digits + ".0");
      case 1 -> NODES.textNode(digits + ".000");
      case 2 -> value.signum() >= 0 ? NODES.textNode("+" + digits) : NODES.textNode(digits);
      case 3 -> value.signum() >= 0 ? NODES.textNode("00" + digits) : NODES.textNode(digits);
      case 4 -> raw(new BigDecimal(value).stripTrailingZeros().toString().replace("E+", "e"));
      default -> value.signum() == 0 ? raw("-0") : NODES.textNode(digits + "e0");
    };
  }

  private JsonNode floating(FloatType type) {
    int roll = roll(96);
    String literal;
    if (roll < 45) {
      if (type.single()) {
        float f;
        do {
          f = Float.intBitsToFloat(random.nextInt());
        } while (!Float.isFinite(f));
        literal = chance(0.8) ? Float.toString(f) : new BigDecimal(f).toString();
      } else {
        double d;
        do {
          d = Double.longBitsToDouble(random.nextLong());
        } while (!Double.isFinite(d));
        literal = chance(0.8) ? Double.toString(d) : new BigDecimal(d).toString();
      }
    } else if (roll < 75) {
      // Decimal text with up to 25 significant digits: rounding to the type is exercised.
      BigInteger digits = new BigInteger(1 + random.nextInt(83), random);
      int exponent = random.nextInt(type.single() ? 90 : 640) - (type.single() ? 50 : 330);
      literal = (random.nextBoolean() ? "-" : "") + new BigDecimal(digits, -exponent);
    } else if (roll < 90) {
      literal =
          type.single()
              ? pick(
                  "3.4028235e38",
                  "-3.4028235E38",
                  "3.4028235677973362e38",
                  "3.4028235677973366e38",
                  "1.4e-45",
                  "7.1e-46",
                  "7e-46",
                  "1.17549435e-38",
                  "-0.0",
                  "0",
                  "1e-50",
                  "16777217")
              : pick(
                  "1.7976931348623157e308",
                  "1.7976931348623158e308",
                  "1.797693134862315807937e308",
                  "-1.7976931348623159e308",
                  "4.9e-324",
                  "2.4703282292062328e-324",
                  "2.4703282292062327e-324",
                  "2.2250738585072014e-308",
                  "-0.0",
                  "0",
                  "9007199254740993",
                  "1e-400");
    } else if (roll < 96) {
      return NODES.textNode(
          pick(
              "NaN",
              "nan",
              "-nan",
              "inf",
              "-inf",
              "+inf",
              "Infinity",
              "-Infinity",
              "INF",
              "1e400"));
    } else {
      return pick(
          NODES.textNode(pick("", "0x1p3", "1.5f", " 1.5", "1.5d", "\u0661", "1e", "Infinityx")),
          NODES.booleanNode(true),
          raw(type.single() ? "1e39" : "1e309"),
          NODES.arrayNode().add(1.5));
    }
    return chance(0.75) ? raw(literal) : NODES.textNode(literal);
  }

  private JsonNode decimal(DecimalType type) {
    int roll = roll(90);
    int integerDigits = type.precision() - type.scale();
    BigDecimal value;
    if (roll < 70) {
      int digits = 1 + random.nextInt(type.precision());
      BigInteger unscaled = new BigInteger(digits * 3, random).mod(BigInteger.TEN.pow(digits));
      int extra = chance(0.3) ? 1 + random.nextInt(5) : 0;
      if (extra > 0) {
        unscaled =
            unscaled
                .multiply(BigInteger.TEN.pow(extra))
                .add(BigInteger.valueOf(random.nextInt(100000)).mod(BigInteger.TEN.pow(extra)));
      }
      value = new BigDecimal(unscaled, type.scale() + extra);
      if (value.precision() - value.scale() > integerDigits) {
        value = value.movePointLeft(value.precision() - value.scale() - integerDigits);
      }
    } else if (roll < 82) {
      BigDecimal max =
          BigDecimal.ONE
              .movePointRight(integerDigits)
              .subtract(BigDecimal.ONE.movePointLeft(type.scale()));
      value =
          pick(
              max,
              max.negate(),
              BigDecimal.ZERO,
              max.add(new BigDecimal("0.999999999").movePointLeft(type.scale())),
              BigDecimal.ONE.movePointLeft(type.scale()),
              BigDecimal.ONE.movePointLeft(type.scale() + 1),
              new BigDecimal("1e-999999999"),
              new BigDecimal("-1e-40"));
    } else if (roll < 90) {
      return pick(
          raw("-0"),
          raw("-0.0"),
          integerDigits >= 3 ? raw("1e2") : raw("0"),
          raw("0E+5"),
          NODES.textNode(integerDigits >= 1 ? "+1.5" : "+0.5"),
          NODES.textNode(".5"),
          NODES.textNode(integerDigits >= 1 ? "5." : "0."),
          NODES.textNode(integerDigits >= 1 ? "-.5e1" : "-.5e-1"));
    } else if (roll < 95) {
      value =
          pick(
              BigDecimal.ONE.movePointRight(integerDigits),
              BigDecimal.ONE.movePointRight(integerDigits).negate(),
              new BigDecimal("1E+400"));
    } else {
      return pick(
          NODES.textNode(pick("", "NaN", "Infinity", "1,5", "\u0661", " 1", "1e")),
          NODES.booleanNode(false),
          NODES.arrayNode());
    }
    boolean plainable = Math.abs(value.scale()) <= 100;
    String text = plainable && chance(0.7) ? value.toPlainString() : value.toString();
    return chance(0.6) ? raw(text) : NODES.textNode(text);
  }

  private JsonNode bool() {
    int roll = roll(90);
    if (roll < 60) {
      return NODES.booleanNode(random.nextBoolean());
    }
    if (roll < 75) {
      return NODES.numberNode(random.nextInt(2));
    }
    if (roll < 90) {
      return NODES.textNode(pick("true", "false", "0", "1"));
    }
    return pick(
        NODES.numberNode(2),
        NODES.numberNode(-1),
        raw("1.0"),
        raw("-0"),
        NODES.textNode("yes"),
        NODES.textNode("TRUE"),
        NODES.textNode(""),
        NODES.textNode("t"),
        NODES.arrayNode());
  }

  // ---- dates and times ----

  private JsonNode date(DateType type) {
    int roll = roll(90);
    long min = type.minDay();
    long max = type.maxDay();
    if (roll < 90) {
      long day =
          roll < 80 ? min + (long) (random.nextDouble() * (max - min + 1)) : pick(min, max, 0L);
      return chance(0.8)
          ? NODES.textNode(java.time.LocalDate.ofEpochDay(day).toString())
          : NODES.numberNode(day);
    }
    if (roll < 95) {
      long day = pick(min - 1, max + 1, -1L, 65_536L, 2_932_897L);
      return chance(0.6) && day >= -300_000 && day <= 2_900_000
          ? NODES.textNode(java.time.LocalDate.ofEpochDay(day).toString())
          : NODES.numberNode(day);
    }
    return pick(
        NODES.textNode(pick("2026-02-30", "2026-13-01", "2026-1-5", "20260115", "2026-01-15 ")),
        NODES.textNode(pick("2026-01-15T00:00:00", "2026/01/15", "15.01.2026", "", "12345")),
        raw("1.5"),
        NODES.textNode("\u0662\u0660\u0662\u0666-01-15"),
        NODES.booleanNode(true));
  }

  private JsonNode dateTime(DateTimeType type) {
    int roll = roll(80);
    ZoneId zone = type.zone() == null ? ZoneOffset.UTC : ZoneId.of(type.zone());
    int precision = type.wide() ? type.precision() : 0;
    if (roll < 72) {
      return renderInstant(randomTicks(type), precision, zone);
    }
    if (roll < 80) {
      return localTimeAroundAClockChange(zone);
    }
    if (roll < 92) {
      return edgeDateTime(type, zone);
    }
    return pick(
        NODES.textNode(pick("2026-01-15 24:00:00", "2026-01-15 23:60:00", "2026-01-15 23:59:60")),
        NODES.textNode(pick("2026-02-29 00:00:00", "2026-01-15T12:34:56+25:00", "now", "")),
        NODES.textNode(
            pick("2026-01-15T12:34:56.Z", "2026-01-15t12:34:56z", "2026/01/15 12:00:00")),
        NODES.textNode(pick("15.01.2026 12:00", "2026-01-15T12", "2026-01-15T12:34:56+5", "12")),
        NODES.textNode(pick("\u0661\u0662", "2026-01-15 12:34:56 ", "2026-01-15 12:34:56Z ")),
        NODES.booleanNode(false),
        NODES.arrayNode().add(1));
  }

  /** Ticks within the type's range (for DateTime, precision 0). */
  private BigInteger randomTicks(DateTimeType type) {
    if (!type.wide()) {
      return BigInteger.valueOf((long) (random.nextDouble() * 4_294_967_296.0));
    }
    BigInteger scale = BigInteger.TEN.pow(type.precision());
    long minSecond = -2_208_988_800L;
    long maxSecond = type.precision() == 9 ? 9_223_372_035L : 10_413_791_999L;
    long second = minSecond + (long) (random.nextDouble() * (maxSecond - minSecond));
    return BigInteger.valueOf(second).multiply(scale).add(new BigInteger(64, random).mod(scale));
  }

  /** An instant in one of the text forms or as epoch seconds. */
  private JsonNode renderInstant(BigInteger ticks, int precision, ZoneId zone) {
    EpochTicks split = EpochTicks.of(ticks, precision);
    long second = split.second();
    // The fraction as the type keeps it, then sometimes more digits (cut) or fewer.
    String fraction = split.fraction();
    if (chance(0.2)) {
      fraction = fraction + random.nextInt(1000);
    } else if (chance(0.2) && !fraction.isEmpty()) {
      fraction = fraction.substring(0, 1 + random.nextInt(fraction.length()));
    }
    String dot = fraction.isEmpty() ? "" : (chance(0.05) ? "," : ".") + fraction;
    Instant instant = Instant.ofEpochSecond(second);
    switch (random.nextInt(10)) {
      case 0, 1, 2 -> {
        return NODES.textNode(SPACED.format(instant.atZone(zone)) + dot);
      }
      case 3, 4 -> {
        return NODES.textNode(ISO.format(instant.atOffset(ZoneOffset.UTC)) + dot + pick("Z", "z"));
      }
      case 5, 6 -> {
        ZoneOffset offset =
            ZoneOffset.ofTotalSeconds(
                pick(-12, -9, -3, 0, 1, 5, 9, 13, 14) * 3600 + pick(0, 0, 1800, 2700));
        String text = ISO.format(instant.atOffset(offset)) + dot;
        String id = offset.getId().equals("Z") ? "+00:00" : offset.getId();
        return NODES.textNode(
            text + pick(id, id.replace(":", ""), id.endsWith(":00") ? id.substring(0, 3) : id));
      }
      case 7 -> {
        return NODES.textNode(
            pick(
                SPACED.format(instant.atZone(zone)).substring(0, 10),
                SPACED.format(instant.atZone(zone)).substring(0, 16)));
      }
      default -> {
        String seconds = second + dot.replace(',', '.');
        if (second < 0 && !fraction.isEmpty()) {
          // Epoch seconds of an instant before 1970 with a fraction: -(|s| - fraction).
          BigDecimal exact = new BigDecimal(second).add(new BigDecimal("0." + fraction));
          seconds = exact.toPlainString();
        }
        return chance(0.7) ? raw(seconds) : NODES.textNode(seconds);
      }
    }
  }

  /** A local time in a gap or an overlap of the zone's clock changes, when it has any. */
  private JsonNode localTimeAroundAClockChange(ZoneId zone) {
    List<ZoneOffsetTransition> transitions = new ArrayList<>();
    int year = 1972 + random.nextInt(120);
    ZoneOffsetTransition next =
        zone.getRules()
            .nextTransition(LocalDateTime.of(year, 1, 1, 0, 0).toInstant(ZoneOffset.UTC));
    for (int i = 0; i < 2 && next != null; i++) {
      transitions.add(next);
      next = zone.getRules().nextTransition(next.getInstant());
    }
    if (transitions.isEmpty()) {
      return NODES.textNode(SPACED.format(LocalDateTime.of(year, 6, 1, 12, 0)));
    }
    ZoneOffsetTransition transition = transitions.get(random.nextInt(transitions.size()));
    long seconds = Math.abs(transition.getDuration().getSeconds());
    LocalDateTime local =
        transition.getDateTimeBefore().minusMinutes(1).plusSeconds(random.nextLong(seconds + 120));
    return NODES.textNode(SPACED.format(local));
  }

  private JsonNode edgeDateTime(DateTimeType type, ZoneId zone) {
    if (!type.wide()) {
      long second = pick(0L, -1L, 4_294_967_295L, 4_294_967_296L, 1L);
      return chance(0.5)
          ? NODES.numberNode(second)
          : NODES.textNode(
              ISO.format(Instant.ofEpochSecond(second).atOffset(ZoneOffset.UTC)) + "Z");
    }
    if (chance(0.5)) {
      // Epoch seconds at the limits, and beyond what ticks of 10^-9 s hold in an Int64.
      String seconds =
          pick(
              "10413791999",
              "10413792000",
              "-2208988800",
              "-2208988801",
              "9223372036",
              "9223372037",
              "9300000000",
              "-9300000000",
              "99999999999",
              "-99999999999.5",
              "999999999999",
              "1e12",
              "9223372036.854775807",
              "9223372036.854775808",
              "1e-999999999",
              "-1e-999999999");
      return chance(0.7) ? raw(seconds) : NODES.textNode(seconds);
    }
    String nanos = "999999999".substring(0, Math.max(1, type.precision()));
    return NODES.textNode(
        pick(
            "1900-01-01 00:00:00",
            "1900-01-01T00:00:00Z",
            "1899-12-31T23:59:59." + nanos + "Z",
            "2299-12-31T23:59:59." + nanos + "Z",
            "2300-01-01T00:00:00Z",
            "2262-04-11T23:47:16.854775807Z",
            "2262-04-11T23:47:16.854775808Z",
            "1677-09-21T00:12:43.145224192Z",
            "9999-12-31 23:59:59",
            "0000-01-01 00:00:00",
            "2600-01-01 00:00:00"));
  }

  // ---- identifiers and addresses ----

  private JsonNode uuid() {
    int roll = roll(92);
    if (roll < 85) {
      String text = new java.util.UUID(random.nextLong(), random.nextLong()).toString();
      return NODES.textNode(chance(0.2) ? text.toUpperCase(Locale.ROOT) : text);
    }
    if (roll < 92) {
      return NODES.textNode(
          pick("00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"));
    }
    String base = new java.util.UUID(random.nextLong(), random.nextLong()).toString();
    return pick(
        NODES.textNode(base.replace("-", "")),
        NODES.textNode("{" + base + "}"),
        NODES.textNode("\uff11" + base.substring(1)),
        NODES.textNode(base.substring(1)),
        NODES.textNode(base + "0"),
        NODES.textNode(""),
        NODES.textNode(base.substring(0, 35) + "g"),
        NODES.numberNode(12));
  }

  private String ipv4Text(int address, boolean leadingZeros) {
    StringBuilder text = new StringBuilder();
    for (int i = 3; i >= 0; i--) {
      int part = (address >>> (8 * i)) & 0xFF;
      text.append(
          leadingZeros && chance(0.5) ? String.format("%03d", part) : Integer.toString(part));
      if (i > 0) {
        text.append('.');
      }
    }
    return text.toString();
  }

  private JsonNode ipv4() {
    int roll = roll(92);
    if (roll < 85) {
      return NODES.textNode(ipv4Text(random.nextInt(), chance(0.05)));
    }
    if (roll < 92) {
      return NODES.textNode(pick("0.0.0.0", "255.255.255.255", "127.0.0.1", "000.000.000.000"));
    }
    return pick(
        NODES.textNode(pick("256.1.1.1", "1.2.3", "1.2.3.4.5", " 1.2.3.4", "1.2.3.4 ", "")),
        NODES.textNode(pick("::1", "\uff11.2.3.4", "1.2.3.-4", "1..2.3", "0001.2.3.4")),
        NODES.numberNode(167772161));
  }

  private JsonNode ipv6() {
    int roll = roll(88);
    if (roll < 80) {
      int[] groups = new int[8];
      for (int i = 0; i < 8; i++) {
        groups[i] = chance(0.3) ? 0 : random.nextInt(65536);
      }
      return NODES.textNode(ipv6Text(groups));
    }
    if (roll < 88) {
      return NODES.textNode(
          pick(
              "::",
              "::1",
              "1::",
              "::ffff:" + ipv4Text(random.nextInt(), false),
              "::" + ipv4Text(random.nextInt(), false),
              "64:ff9b::" + ipv4Text(random.nextInt(), false),
              ipv4Text(random.nextInt(), chance(0.2)),
              "1:2:3:4:5:6:" + ipv4Text(random.nextInt(), false),
              "FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF"));
    }
    return NODES.textNode(
        pick(
            "00000::1",
            "\uff11::",
            "1::2::3",
            ":1::",
            "1:",
            "1:::2",
            "::1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7",
            "::ffff:1.2.3",
            "fe80::1%eth0",
            "g::1",
            ":",
            "",
            "::1 ",
            "1.2.3.4.5"));
  }

  /** Eight groups as text: full, or with the first longest zero run as "::", any case. */
  private String ipv6Text(int[] groups) {
    int bestStart = -1;
    int bestLength = 0;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    boolean compress = bestLength > 0 && chance(0.7);
    boolean padded = chance(0.2);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (compress && i == bestStart) {
        text.append("::");
        i += bestLength - 1;
        continue;
      }
      if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
        text.append(':');
      }
      text.append(padded ? String.format("%04x", groups[i]) : Integer.toHexString(groups[i]));
    }
    String result = text.toString();
    return chance(0.2) ? result.toUpperCase(Locale.ROOT) : result;
  }

  private JsonNode enumValue(EnumType type) {
    List<Map.Entry<String, Integer>> entries = new ArrayList<>(type.values().entrySet());
    Map.Entry<String, Integer> entry = entries.get(random.nextInt(entries.size()));
    int roll = roll(90);
    if (roll < 65) {
      return NODES.textNode(entry.getKey());
    }
    if (roll < 85) {
      return NODES.numberNode(entry.getValue());
    }
    if (roll < 90) {
      return chance(0.5)
          ? NODES.textNode(entry.getValue().toString())
          : raw(entry.getValue() + ".0");
    }
    return pick(
        NODES.numberNode(entry.getValue() + 256),
        NODES.numberNode(entry.getValue() + 65536),
        NODES.textNode("4294967297"),
        NODES.textNode(Long.toString(4_294_967_296L + entry.getValue())),
        NODES.textNode(entry.getKey().toUpperCase(Locale.ROOT) + "x"),
        NODES.textNode(" " + entry.getKey()),
        NODES.textNode(entry.getValue() + ".5"),
        NODES.booleanNode(true),
        NODES.numberNode(200_000));
  }

  // ---- containers ----

  /** A value inside a container: sometimes null whatever the type. */
  private JsonNode element(FuzzType type) {
    return chance(type.nullable() ? 0.1 : 0.003) ? NODES.nullNode() : value(type);
  }

  private JsonNode array(ArrayType type) {
    if (edge) {
      return otherKind();
    }
    ArrayNode array = NODES.arrayNode();
    for (int i = random.nextInt(chance(0.1) ? 12 : 4); i > 0; i--) {
      array.add(element(type.element()));
    }
    return array;
  }

  private JsonNode map(MapType type) {
    if (edge) {
      return otherKind();
    }
    ObjectNode map = NODES.objectNode();
    for (int i = random.nextInt(4); i > 0; i--) {
      JsonNode key = value(type.key());
      String text = null;
      if (key.isPojo()) {
        Object pojo = ((com.fasterxml.jackson.databind.node.POJONode) key).getPojo();
        text = pojo instanceof RawValue rawValue ? rawValue.rawValue().toString() : null;
      } else if (key.isTextual()) {
        text = key.textValue();
      } else if (key.isValueNode() && !key.isNull()) {
        text = key.toString();
      }
      if (text != null) {
        map.set(text, element(type.value()));
      }
    }
    return map;
  }

  private JsonNode tuple(TupleType type) {
    boolean misshapen = edge;
    if (misshapen && chance(0.5)) {
      return otherKind();
    }
    List<FuzzType> elements = type.elements();
    if (type.names() == null || chance(0.3)) {
      ArrayNode array = NODES.arrayNode();
      int size = misshapen ? elements.size() + pick(-1, 1) : elements.size();
      for (int i = 0; i < size; i++) {
        array.add(element(elements.get(Math.min(i, elements.size() - 1))));
      }
      return array;
    }
    ObjectNode object = NODES.objectNode();
    for (int i = 0; i < elements.size(); i++) {
      if (!misshapen || chance(0.5)) {
        object.set(type.names().get(i), element(elements.get(i)));
      }
    }
    if (chance(0.05)) {
      object.put("unknown", 1);
    }
    return object;
  }

  /** A JSON object for a JSON column: nested objects and arrays of every kind of value. */
  private ObjectNode jsonObject(int depth) {
    ObjectNode object = NODES.objectNode();
    for (int i = random.nextInt(depth > 2 ? 2 : 5); i > 0; i--) {
      String key = pick("a", "b", "name", "n" + random.nextInt(5), "x_y", "\u00e9", "k" + i);
      object.set(
          key,
          switch (random.nextInt(depth > 2 ? 6 : 8)) {
            case 0 -> NODES.numberNode(random.nextInt(1000) - 500);
            case 1 -> raw(pick("1.5", "1e3", "-0.25", "12345678901234567890", "0.1e1"));
            case 2 -> NODES.booleanNode(random.nextBoolean());
            case 3 -> NODES.nullNode();
            case 4, 5 -> NODES.textNode(text(10));
            case 6 -> jsonObject(depth + 1);
            default -> NODES.arrayNode().add(random.nextInt(10)).add(random.nextInt(10));
          });
    }
    return object;
  }
}
