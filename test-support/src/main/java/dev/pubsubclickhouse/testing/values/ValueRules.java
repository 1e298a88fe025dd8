package dev.pubsubclickhouse.testing.values;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.testing.values.Expectation.Refuse;
import dev.pubsubclickhouse.testing.values.Expectation.Store;
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
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The README's type rules, written out independently of the encoder: for a column type and a JSON
 * value (as the service parses it), whether the value must be stored and, if so, a canonical form
 * that ClickHouse's own JSON parser reads as the same value, or whether it must be refused and by
 * which rule.
 *
 * <p>Where ClickHouse's JSON parsing and our rules agree, the canonical form is the value itself.
 * Where they differ, a named rule says how: the constants below, listed in {@link #ALL}, each of
 * which every run must use; the README's type table says the same.
 *
 * <p>A zone-less DateTime column reads text in UTC: the twin table is written with {@code
 * session_timezone = 'UTC'} for the same reading.
 */
public final class ValueRules {
  static final String INTEGER_FORMS =
      "an integer may be written with a zero fraction or an exponent (42.0, 4.2e1), or as numeric"
          + " text; ClickHouse reads only digits, quoted or not";
  static final String INTEGER_RANGE =
      "an integer beyond its type's range, or with a fraction, is refused; ClickHouse wraps it";
  static final String NUMERIC_TEXT =
      "numeric text is ASCII decimal text ([+-]digits[.digits][e[+-]digits])";
  static final String NOT_A_NUMBER =
      "a number column refuses what is not a number or numeric text: booleans, \"\", other text;"
          + " ClickHouse reads true as 1 and \"\" as 0";
  static final String FLOAT_RANGE =
      "a finite number beyond Float32/Float64 is refused; ClickHouse stores inf";
  static final String DECIMAL_RANGE =
      "a decimal with more than P - S integer digits (after cutting to S places) is refused";
  static final String DECIMAL_ZERO =
      "zero with an exponent (0E+5) is 0; ClickHouse refuses it when exponent and scale exceed P";
  static final String BOOL_FORMS =
      "Bool reads true/false, 0/1 (not -0) and the texts \"true\"/\"false\"/\"0\"/\"1\"; ClickHouse reads"
          + " no text";
  static final String STRING_OF_JSON =
      "a String column given an array or object stores its compact JSON text (its numbers as"
          + " written); ClickHouse keeps the text as sent";
  static final String LONE_SURROGATE =
      "text with a lone UTF-16 surrogate is refused, as ClickHouse refuses it (code 25)";
  static final String FIXED_STRING_LENGTH = "text longer than FixedString(N) in UTF-8 is refused";
  static final String DATE_FORM =
      "Date/Date32 read YYYY-MM-DD text or a whole number of days; ClickHouse also reads 2026-1-5";
  static final String DATE_RANGE =
      "a date beyond Date's or Date32's range is refused; ClickHouse clamps or wraps it";
  static final String EPOCH_SECONDS =
      "DateTime and DateTime64 read a number or numeric text as epoch seconds, with a fraction"
          + " cut to the precision; ClickHouse reads a DateTime64 number as ticks and refuses a"
          + " fraction";
  static final String DATETIME_FORM =
      "date-time text is YYYY-MM-DD[(T| )hh:mm[:ss[(.|,)fraction]]][Z|(+|-)hh[[:]mm]]; ClickHouse's"
          + " best-effort parsing reads more";
  static final String DATETIME_RANGE =
      "a date-time beyond DateTime's range or DateTime64's (1900-01-01 to 2299-12-31 UTC, at"
          + " p = 9 to 2262-04-11 23:47:16.854775807) is refused; ClickHouse clamps it";
  static final String ODD_CHANGE =
      "a local time near a clock change at an odd time or by an odd amount (St. John's at 00:01,"
          + " Kiritimati by 40 minutes) is read by the zone's rules; ClickHouse keeps changes in"
          + " quarter hours and reads such times up to an hour off";
  static final String UUID_FORM =
      "a UUID is 8-4-4-4-12 hex text; ClickHouse also reads 32 hex digits";
  static final String IPV4_FORM =
      "IPv4 parts may have leading zeros (read as decimal) in IPv4 and IPv6 columns";
  static final String IP_FORM = "text that is not an address of the column's family is refused";
  static final String ENUM_NUMBER =
      "an enum takes a name or one of its numbers, as a number (1.0 too) or numeric text";
  static final String ENUM_UNKNOWN = "a name or number the enum lacks is refused";
  static final String REQUIRED =
      "null or missing for a column (or element) that is not Nullable, Array or Map and has no"
          + " DEFAULT is refused; ClickHouse writes the type's default";
  static final String NAMED_TUPLE_ARRAY =
      "a named tuple also reads an array by position; ClickHouse reads only an object";
  static final String TUPLE_SHAPE = "a tuple takes an array of its size (or an object, when named)";
  static final String JSON_OBJECT =
      "a JSON column takes an object (or the text of one); any other value is refused, as"
          + " ClickHouse refuses it";
  static final String JSON_TEXT =
      "a JSON column also takes a string holding an object's JSON text (BigQuery sends JSON so);"
          + " ClickHouse reads only the object itself";
  static final String WRONG_KIND = "a value of the wrong kind (an array for a number, ...)";

  /** Every rule above: each run must have used each, or the generator has lost a case. */
  static final List<String> ALL =
      List.of(
          INTEGER_FORMS,
          INTEGER_RANGE,
          NUMERIC_TEXT,
          NOT_A_NUMBER,
          FLOAT_RANGE,
          DECIMAL_RANGE,
          DECIMAL_ZERO,
          BOOL_FORMS,
          STRING_OF_JSON,
          LONE_SURROGATE,
          FIXED_STRING_LENGTH,
          DATE_FORM,
          DATE_RANGE,
          EPOCH_SECONDS,
          DATETIME_FORM,
          DATETIME_RANGE,
          ODD_CHANGE,
          UUID_FORM,
          IPV4_FORM,
          IP_FORM,
          ENUM_NUMBER,
          ENUM_UNKNOWN,
          REQUIRED,
          NAMED_TUPLE_ARRAY,
          TUPLE_SHAPE,
          JSON_OBJECT,
          JSON_TEXT,
          WRONG_KIND);

  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final Pattern DATE = Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})");
  private static final Pattern DATE_TIME =
      Pattern.compile(
          "(\\d{4})-(\\d{2})-(\\d{2})"
              + "(?:[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:[.,](\\d+))?)?)?"
              + "(Z|z|[+-]\\d{2}(?::?\\d{2})?)?");
  private static final Pattern DECIMAL_TEXT =
      Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");
  private static final Pattern UUID =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final java.time.format.DateTimeFormatter ISO_SECONDS =
      java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss", Locale.ROOT);
  private static final long DATETIME64_MIN_SECOND = -2_208_988_800L;
  private static final long DATETIME64_MAX_SECOND = 10_413_791_999L;

  /** How often each rule decided a value, by "stored by: rule" or "refused by: rule". */
  public final Map<String, Integer> used = new TreeMap<>();

  /** The rules no value of this run was decided by. */
  public List<String> unused() {
    return ALL.stream()
        .filter(
            rule ->
                !used.containsKey("stored by: " + rule) && !used.containsKey("refused by: " + rule))
        .toList();
  }

  /** The expectation for every column of a row (a JSON object), in the columns' order. */
  public List<Expectation> expectRow(List<TwinTable.Column> columns, JsonNode row) {
    List<Expectation> expectations = new ArrayList<>(columns.size());
    for (TwinTable.Column column : columns) {
      JsonNode value = row.get(column.name());
      expectations.add(
          value == null || value.isNull()
              ? expectAbsent(column.type())
              : expect(column.type(), value));
    }
    return expectations;
  }

  /** The expectation for a value that is present and not null. */
  public Expectation expect(FuzzType type, JsonNode value) {
    if (type instanceof NullableType nullable) {
      return expect(nullable.inner(), value);
    }
    if (type instanceof LowCardinalityType lowCardinality) {
      return expect(lowCardinality.inner(), value);
    }
    if (type instanceof IntType integer) {
      return integer(integer, value);
    }
    if (type instanceof FloatType floating) {
      return floating(floating, value);
    }
    if (type instanceof DecimalType decimal) {
      return decimal(decimal, value);
    }
    if (type instanceof BoolType) {
      return bool(value);
    }
    if (type instanceof StringType) {
      return string(value);
    }
    if (type instanceof FixedStringType fixed) {
      return fixedString(fixed, value);
    }
    if (type instanceof DateType date) {
      return date(date, value);
    }
    if (type instanceof DateTimeType dateTime) {
      return dateTime(dateTime, value);
    }
    if (type instanceof UuidType) {
      return uuid(value);
    }
    if (type instanceof IpType ip) {
      return ip(ip, value);
    }
    if (type instanceof EnumType enumType) {
      return enumValue(enumType, value);
    }
    if (type instanceof ArrayType array) {
      return array(array, value);
    }
    if (type instanceof MapType map) {
      return map(map, value);
    }
    if (type instanceof TupleType tuple) {
      return tuple(tuple, value);
    }
    if (type instanceof JsonType) {
      JsonNode object = value.isTextual() ? parsedOrNull(value.textValue()) : value;
      if (object == null || !object.isObject()) {
        return refuse(JSON_OBJECT);
      }
      if (hasLoneSurrogate(object.toString())) {
        return refuse(LONE_SURROGATE);
      }
      return value.isTextual() ? store(object, JSON_TEXT) : store(object);
    }
    throw new IllegalArgumentException(type.sql());
  }

  /** The expectation for a null or missing value of a column without DEFAULT. */
  public Expectation expectAbsent(FuzzType type) {
    if (type.nullable()) {
      return store(NODES.nullNode());
    }
    if (type instanceof ArrayType) {
      return store(NODES.arrayNode());
    }
    if (type instanceof MapType) {
      return store(new MapEntriesNode(new MapEntries(List.of())));
    }
    return refuse(REQUIRED);
  }

  private Expectation element(FuzzType type, JsonNode value) {
    return value == null || value.isNull()
        ? (type.nullable() ? store(NODES.nullNode()) : refuse(REQUIRED))
        : expect(type, value);
  }

  private Store store(JsonNode canonical) {
    return new Store(canonical);
  }

  /** Stored as {@code canonical} by {@code rule}, a documented difference ("" for none). */
  private Store store(JsonNode canonical, String rule) {
    if (!rule.isEmpty()) {
      used.merge("stored by: " + rule, 1, Integer::sum);
    }
    return new Store(canonical);
  }

  private Refuse refuse(String rule) {
    used.merge("refused by: " + rule, 1, Integer::sum);
    return new Refuse(rule);
  }

  // ---- numbers ----

  /** The exact value of a number or numeric text; null when it is neither. */
  private static BigDecimal exact(JsonNode value) {
    if (value.isNumber()) {
      return value.decimalValue();
    }
    if (value.isTextual()
        && value.textValue().length() <= 1000
        && DECIMAL_TEXT.matcher(value.textValue()).matches()) {
      return new BigDecimal(value.textValue());
    }
    return null;
  }

  private Expectation notANumber(JsonNode value) {
    return refuse(value.isTextual() || value.isBoolean() ? NOT_A_NUMBER : WRONG_KIND);
  }

  /** The exact integer, or null when the value has a fraction or is beyond any type. */
  private static BigInteger integral(BigDecimal exact) {
    if (exact.signum() == 0) {
      return BigInteger.ZERO;
    }
    if (exact.precision() - exact.scale() > 100) {
      return null;
    }
    try {
      return exact.toBigIntegerExact();
    } catch (ArithmeticException e) {
      return null;
    }
  }

  private Expectation integer(IntType type, JsonNode value) {
    BigDecimal exact = exact(value);
    if (exact == null) {
      return notANumber(value);
    }
    BigInteger integer = integral(exact);
    if (integer == null || integer.compareTo(type.min()) < 0 || integer.compareTo(type.max()) > 0) {
      return refuse(INTEGER_RANGE);
    }
    boolean plain = value.isIntegralNumber();
    return plain
        ? store(NODES.numberNode(integer))
        : store(NODES.numberNode(integer), INTEGER_FORMS);
  }

  private Expectation floating(FloatType type, JsonNode value) {
    if (value.isTextual()) {
      String name = value.textValue().toLowerCase(Locale.ROOT);
      String unsigned = name.startsWith("+") || name.startsWith("-") ? name.substring(1) : name;
      if (unsigned.equals("nan")) {
        return store(NODES.textNode("nan"));
      }
      if (unsigned.equals("inf") || unsigned.equals("infinity")) {
        return store(NODES.textNode(name.startsWith("-") ? "-inf" : "inf"));
      }
    }
    BigDecimal exact = exact(value);
    if (exact == null) {
      return notANumber(value);
    }
    double rounded = type.single() ? exact.floatValue() : exact.doubleValue();
    if (Double.isInfinite(rounded)) {
      return refuse(FLOAT_RANGE);
    }
    return value.isNumber() ? store(value) : store(value, NUMERIC_TEXT);
  }

  private Expectation decimal(DecimalType type, JsonNode value) {
    BigDecimal exact = exact(value);
    if (exact == null) {
      return notANumber(value);
    }
    int integerDigits = type.precision() - type.scale();
    if (exact.signum() != 0 && exact.precision() - exact.scale() > integerDigits) {
      return refuse(DECIMAL_RANGE);
    }
    BigDecimal cut =
        exact.precision() - exact.scale() <= -type.scale()
            ? BigDecimal.ZERO
            : exact.setScale(type.scale(), RoundingMode.DOWN);
    if (cut.unscaledValue().abs().compareTo(BigInteger.TEN.pow(type.precision())) >= 0) {
      return refuse(DECIMAL_RANGE);
    }
    if (exact.signum() == 0 && exact.scale() < 0) {
      return store(NODES.textNode("0"), DECIMAL_ZERO);
    }
    // ClickHouse cuts the digits itself: the value as sent, unless its exponent is far out.
    boolean plainEnough = Math.abs(exact.scale()) <= 100;
    JsonNode canonical = plainEnough ? value : NODES.textNode(cut.toPlainString());
    return store(canonical, value.isNumber() ? "" : NUMERIC_TEXT);
  }

  private Expectation bool(JsonNode value) {
    if (value.isBoolean()) {
      return store(value);
    }
    // As written: ClickHouse refuses -0.
    if (value.isIntegralNumber() && value.canConvertToLong() && !value.toString().startsWith("-")) {
      long number = value.longValue();
      if (number == 0 || number == 1) {
        return store(value);
      }
    }
    if (value.isTextual()) {
      switch (value.textValue()) {
        case "true", "1" -> {
          return store(NODES.booleanNode(true), BOOL_FORMS);
        }
        case "false", "0" -> {
          return store(NODES.booleanNode(false), BOOL_FORMS);
        }
        default -> {}
      }
    }
    return refuse(BOOL_FORMS);
  }

  // ---- text ----

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      com.fasterxml.jackson.databind.json.JsonMapper.builder()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .nodeFactory(NODES)
          .build();

  /** The JSON value a text holds, or null when it is not JSON. */
  private static JsonNode parsedOrNull(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      return null;
    }
  }

  private static boolean hasLoneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
        } else {
          return true;
        }
      } else if (Character.isLowSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  private Expectation string(JsonNode value) {
    if (value.isTextual()) {
      return hasLoneSurrogate(value.textValue()) ? refuse(LONE_SURROGATE) : store(value);
    }
    if (value.isNumber() || value.isBoolean()) {
      return store(value); // a number or boolean: its text as written, as ClickHouse keeps it
    }
    String compact = value.toString();
    return hasLoneSurrogate(compact)
        ? refuse(LONE_SURROGATE)
        : store(NODES.textNode(compact), STRING_OF_JSON);
  }

  private Expectation fixedString(FixedStringType type, JsonNode value) {
    if (!value.isTextual()) {
      return refuse(WRONG_KIND);
    }
    if (hasLoneSurrogate(value.textValue())) {
      return refuse(LONE_SURROGATE);
    }
    return value.textValue().getBytes(StandardCharsets.UTF_8).length > type.length()
        ? refuse(FIXED_STRING_LENGTH)
        : store(value);
  }

  // ---- dates and times ----

  private Expectation date(DateType type, JsonNode value) {
    long day;
    if (value.isTextual()) {
      Matcher m = DATE.matcher(value.textValue());
      if (!m.matches()) {
        return refuse(DATE_FORM);
      }
      LocalDate date = localDate(m.group(1), m.group(2), m.group(3));
      if (date == null) {
        return refuse(DATE_FORM);
      }
      day = date.toEpochDay();
    } else if (value.isIntegralNumber() && value.canConvertToLong()) {
      day = value.longValue();
    } else {
      return refuse(value.isNumber() ? DATE_FORM : WRONG_KIND);
    }
    return day < type.minDay() || day > type.maxDay() ? refuse(DATE_RANGE) : store(value);
  }

  private static LocalDate localDate(String year, String month, String day) {
    try {
      return LocalDate.of(Integer.parseInt(year), Integer.parseInt(month), Integer.parseInt(day));
    } catch (DateTimeException e) {
      return null;
    }
  }

  private Expectation dateTime(DateTimeType type, JsonNode value) {
    String text = value.isTextual() ? value.textValue() : null;
    if (text != null && text.length() >= 10 && text.charAt(4) == '-') {
      Matcher m = DATE_TIME.matcher(text);
      if (!m.matches()) {
        return refuse(DATETIME_FORM);
      }
      BigInteger ticks = textTicks(m, type);
      if (ticks == null) {
        return refuse(DATETIME_FORM);
      }
      if (!inRange(type, ticks)) {
        return refuse(DATETIME_RANGE);
      }
      // ClickHouse reads neither a comma before the fraction nor a lower-case z.
      String canonical = text.replace(',', '.').replace('z', 'Z');
      String utc = utcNearOddChange(m, type);
      if (utc != null) {
        return store(NODES.textNode(utc), ODD_CHANGE);
      }
      return canonical.equals(text)
          ? store(value)
          : store(NODES.textNode(canonical), DATETIME_FORM);
    }
    BigDecimal seconds = value.isNumber() || text != null ? exact(value) : null;
    if (seconds == null) {
      return refuse(text != null ? DATETIME_FORM : WRONG_KIND);
    }
    if (seconds.precision() - seconds.scale() > 13) {
      return refuse(DATETIME_RANGE);
    }
    int precision = type.wide() ? type.precision() : 0;
    BigInteger ticks =
        seconds.precision() - seconds.scale() <= -precision
            ? BigInteger.valueOf(seconds.signum() < 0 ? -1 : 0)
            : seconds.movePointRight(precision).setScale(0, RoundingMode.FLOOR).toBigInteger();
    if (!inRange(type, ticks)) {
      return refuse(DATETIME_RANGE);
    }
    if (!type.wide() && value.isIntegralNumber()) {
      return store(value); // ClickHouse reads a DateTime number as epoch seconds too
    }
    return store(NODES.textNode(isoText(ticks, precision)), EPOCH_SECONDS);
  }

  /** ticks of the text's instant at the type's precision, or null when a field is invalid. */
  private static BigInteger textTicks(Matcher m, DateTimeType type) {
    LocalDate date = localDate(m.group(1), m.group(2), m.group(3));
    if (date == null) {
      return null;
    }
    int hour = m.group(4) == null ? 0 : Integer.parseInt(m.group(4));
    int minute = m.group(5) == null ? 0 : Integer.parseInt(m.group(5));
    int second = m.group(6) == null ? 0 : Integer.parseInt(m.group(6));
    if (hour > 23 || minute > 59 || second > 59) {
      return null;
    }
    LocalDateTime local = date.atTime(hour, minute, second);
    long epochSecond;
    String offset = m.group(8);
    if (offset == null) {
      ZoneId zone = type.zone() == null ? ZoneOffset.UTC : ZoneId.of(type.zone());
      epochSecond = local.toEpochSecond(offsetAsClickHouseReads(local, zone));
    } else if (offset.equalsIgnoreCase("z")) {
      epochSecond = local.toEpochSecond(ZoneOffset.UTC);
    } else {
      String digits = offset.substring(1).replace(":", "");
      int hours = Integer.parseInt(digits.substring(0, 2));
      int minutes = digits.length() > 2 ? Integer.parseInt(digits.substring(2)) : 0;
      if (hours > 18 || minutes > 59) {
        return null;
      }
      int sign = offset.charAt(0) == '-' ? -1 : 1;
      epochSecond = local.toEpochSecond(ZoneOffset.UTC) - sign * (hours * 3600L + minutes * 60L);
    }
    int precision = type.wide() ? type.precision() : 0;
    String fraction = m.group(7) == null ? "" : m.group(7);
    String kept = (fraction + "0".repeat(precision)).substring(0, precision);
    return BigInteger.valueOf(epochSecond)
        .multiply(BigInteger.TEN.pow(precision))
        .add(kept.isEmpty() ? BigInteger.ZERO : new BigInteger(kept));
  }

  /**
   * For a zone-local text within two days of a clock change that ClickHouse's date LUT cannot
   * represent exactly (it keeps the time and the amount of a change in quarter hours: St. John's
   * changed at 00:01 until 2011, Kiritimati by 40 minutes in 1979, and leaving local mean time
   * moved clocks by odd seconds), the instant the rules read, as ISO-8601 UTC text; else null.
   * ClickHouse reads such times up to an hour off, so they are compared in UTC.
   */
  private static String utcNearOddChange(Matcher m, DateTimeType type) {
    if (m.group(8) != null || type.zone() == null) {
      return null;
    }
    LocalDateTime local =
        localDate(m.group(1), m.group(2), m.group(3))
            .atTime(
                m.group(4) == null ? 0 : Integer.parseInt(m.group(4)),
                m.group(5) == null ? 0 : Integer.parseInt(m.group(5)),
                m.group(6) == null ? 0 : Integer.parseInt(m.group(6)));
    ZoneId zone = ZoneId.of(type.zone());
    java.time.Instant instant = local.toInstant(offsetAsClickHouseReads(local, zone));
    ZoneRules rules = zone.getRules();
    for (ZoneOffsetTransition change :
        new ZoneOffsetTransition[] {
          rules.previousTransition(instant.plusSeconds(2 * 86_400)),
          rules.previousTransition(instant.plusSeconds(1)),
          rules.nextTransition(instant.minusSeconds(2 * 86_400))
        }) {
      if (change == null
          || Math.abs(change.getInstant().getEpochSecond() - instant.getEpochSecond())
              > 2 * 86_400) {
        continue;
      }
      boolean oddTime = change.getDateTimeBefore().toLocalTime().toSecondOfDay() % 900 != 0;
      boolean oddAmount = change.getDuration().getSeconds() % 900 != 0;
      if (oddTime || oddAmount) {
        String fraction = m.group(7) == null ? "" : "." + m.group(7);
        return LocalDateTime.ofInstant(instant, ZoneOffset.UTC).format(ISO_SECONDS)
            + fraction
            + "Z";
      }
    }
    return null;
  }

  /**
   * A local time skipped by a clock change is read with the offset after it, and one that occurs
   * twice with the earlier offset: what ClickHouse's date LUT does.
   */
  static ZoneOffset offsetAsClickHouseReads(LocalDateTime local, ZoneId zone) {
    ZoneRules rules = zone.getRules();
    List<ZoneOffset> offsets = rules.getValidOffsets(local);
    if (offsets.isEmpty()) {
      ZoneOffsetTransition gap = rules.getTransition(local);
      return gap.getOffsetAfter();
    }
    return offsets.get(0);
  }

  private static boolean inRange(DateTimeType type, BigInteger ticks) {
    if (!type.wide()) {
      return ticks.signum() >= 0 && ticks.compareTo(BigInteger.valueOf(4_294_967_295L)) <= 0;
    }
    BigInteger scale = BigInteger.TEN.pow(type.precision());
    BigInteger min = BigInteger.valueOf(DATETIME64_MIN_SECOND).multiply(scale);
    BigInteger max =
        BigInteger.valueOf(DATETIME64_MAX_SECOND + 1)
            .multiply(scale)
            .subtract(BigInteger.ONE)
            .min(BigInteger.valueOf(Long.MAX_VALUE));
    return ticks.compareTo(min) >= 0 && ticks.compareTo(max) <= 0;
  }

  /** The instant of epoch seconds as ISO-8601 UTC text with the ticks' fraction. */
  private static String isoText(BigInteger ticks, int precision) {
    EpochTicks split = EpochTicks.of(ticks, precision);
    String text = LocalDateTime.ofEpochSecond(split.second(), 0, ZoneOffset.UTC).toString();
    if (text.length() == 16) {
      text += ":00"; // LocalDateTime leaves out zero seconds
    }
    if (precision > 0) {
      text += "." + split.fraction();
    }
    return text + "Z";
  }

  // ---- identifiers and addresses ----

  private Expectation uuid(JsonNode value) {
    if (!value.isTextual()) {
      return refuse(WRONG_KIND);
    }
    return UUID.matcher(value.textValue()).matches() ? store(value) : refuse(UUID_FORM);
  }

  private Expectation ip(IpType type, JsonNode value) {
    if (!value.isTextual()) {
      return refuse(WRONG_KIND);
    }
    String text = value.textValue();
    if (!type.v6() || text.indexOf(':') < 0) {
      int[] parts = ipv4(text);
      if (parts == null) {
        return refuse(IP_FORM);
      }
      String canonical = parts[0] + "." + parts[1] + "." + parts[2] + "." + parts[3];
      return canonical.equals(text) ? store(value) : store(NODES.textNode(canonical), IPV4_FORM);
    }
    int[] groups = ipv6(text);
    if (groups == null) {
      return refuse(IP_FORM);
    }
    StringBuilder canonical = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      canonical.append(i == 0 ? "" : ":").append(Integer.toHexString(groups[i]));
    }
    return store(NODES.textNode(canonical.toString()));
  }

  /** Four decimal parts 0-255, leading zeros allowed, ASCII digits only; null otherwise. */
  private static int[] ipv4(String text) {
    String[] parts = text.split("\\.", -1);
    if (parts.length != 4) {
      return null;
    }
    int[] values = new int[4];
    for (int i = 0; i < 4; i++) {
      if (!parts[i].matches("[0-9]+")) {
        return null;
      }
      BigInteger part = new BigInteger(parts[i]);
      if (part.compareTo(BigInteger.valueOf(255)) > 0) {
        return null;
      }
      values[i] = part.intValue();
    }
    return values;
  }

  /** Eight 16-bit groups of RFC 4291 text; null when it is not one. */
  private static int[] ipv6(String text) {
    String head = text;
    List<Integer> tail = List.of();
    if (text.indexOf('.') >= 0) {
      int lastColon = text.lastIndexOf(':');
      int[] v4 = ipv4(text.substring(lastColon + 1));
      if (v4 == null) {
        return null;
      }
      tail = List.of(v4[0] << 8 | v4[1], v4[2] << 8 | v4[3]);
      head = text.substring(0, lastColon + 1);
      // "1:2:3:4:5:6:" loses the separator before the tail; "::" stays whole.
      head = head.endsWith("::") ? head : head.substring(0, head.length() - 1);
    }
    int gap = head.indexOf("::");
    if (gap >= 0 && head.indexOf("::", gap + 1) >= 0) {
      return null;
    }
    List<Integer> before = hexGroups(gap >= 0 ? head.substring(0, gap) : head);
    List<Integer> after = gap >= 0 ? hexGroups(head.substring(gap + 2)) : List.of();
    if (before == null || after == null) {
      return null;
    }
    int present = before.size() + after.size() + tail.size();
    if (gap < 0 ? present != 8 : present >= 8) {
      return null;
    }
    List<Integer> groups = new ArrayList<>(before);
    for (int i = present; i < 8; i++) {
      groups.add(0);
    }
    groups.addAll(after);
    groups.addAll(tail);
    return groups.stream().mapToInt(Integer::intValue).toArray();
  }

  private static List<Integer> hexGroups(String text) {
    List<Integer> groups = new ArrayList<>();
    if (text.isEmpty()) {
      return groups;
    }
    for (String group : text.split(":", -1)) {
      if (!group.matches("[0-9a-fA-F]{1,4}")) {
        return null;
      }
      groups.add(Integer.parseInt(group, 16));
    }
    return groups;
  }

  private Expectation enumValue(EnumType type, JsonNode value) {
    if (value.isTextual() && type.values().containsKey(value.textValue())) {
      return store(value);
    }
    if (!value.isTextual() && !value.isNumber()) {
      return refuse(WRONG_KIND);
    }
    BigDecimal exact = exact(value);
    BigInteger number = exact == null ? null : integral(exact);
    if (number == null
        || number.bitLength() > 31
        || !type.values().containsValue(number.intValue())) {
      return refuse(ENUM_UNKNOWN);
    }
    String name =
        type.values().entrySet().stream()
            .filter(e -> e.getValue() == number.intValue())
            .findFirst()
            .orElseThrow()
            .getKey();
    return value.isIntegralNumber() ? store(value) : store(NODES.textNode(name), ENUM_NUMBER);
  }

  // ---- containers ----

  private Expectation array(ArrayType type, JsonNode value) {
    if (!value.isArray()) {
      return refuse(WRONG_KIND);
    }
    ArrayNode canonical = NODES.arrayNode();
    for (JsonNode item : value) {
      Expectation element = element(type.element(), item);
      if (element instanceof Refuse refusal) {
        return refusal;
      }
      canonical.add(((Store) element).canonical());
    }
    return store(canonical);
  }

  private Expectation map(MapType type, JsonNode value) {
    if (!value.isObject()) {
      return refuse(WRONG_KIND);
    }
    List<Map.Entry<String, JsonNode>> entries = new ArrayList<>();
    Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      Expectation key = expect(type.key(), NODES.textNode(field.getKey()));
      if (key instanceof Refuse refusal) {
        return refusal;
      }
      Expectation item = element(type.value(), field.getValue());
      if (item instanceof Refuse refusal) {
        return refusal;
      }
      entries.add(
          new AbstractMap.SimpleEntry<>(
              keyText(((Store) key).canonical()), ((Store) item).canonical()));
    }
    return store(new MapEntriesNode(new MapEntries(entries)));
  }

  /** A canonical value as the text of a JSON object key. */
  private static String keyText(JsonNode canonical) {
    return canonical.isTextual() ? canonical.textValue() : canonical.toString();
  }

  private Expectation tuple(TupleType type, JsonNode value) {
    List<JsonNode> items = new ArrayList<>();
    String rule = "";
    if (value.isArray()) {
      if (value.size() != type.elements().size()) {
        return refuse(TUPLE_SHAPE);
      }
      value.forEach(items::add);
      rule = type.names() == null ? "" : NAMED_TUPLE_ARRAY;
    } else if (value.isObject() && type.names() != null) {
      for (String name : type.names()) {
        items.add(value.get(name));
      }
    } else {
      return refuse(TUPLE_SHAPE);
    }
    List<JsonNode> canonical = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Expectation element = element(type.elements().get(i), items.get(i));
      if (element instanceof Refuse refusal) {
        return refusal;
      }
      canonical.add(((Store) element).canonical());
    }
    if (type.names() == null) {
      ArrayNode array = NODES.arrayNode();
      canonical.forEach(array::add);
      return store(array, rule);
    }
    ObjectNode object = NODES.objectNode();
    for (int i = 0; i < canonical.size(); i++) {
      object.set(type.names().get(i), canonical.get(i));
    }
    return store(object, rule);
  }

  /** A canonical Map value inside a canonical tree (see {@link TwinRows}). */
  static final class MapEntriesNode extends com.fasterxml.jackson.databind.node.POJONode {
    MapEntriesNode(MapEntries entries) {
      super(entries);
    }

    MapEntries entries() {
      return (MapEntries) getPojo();
    }
  }
}
