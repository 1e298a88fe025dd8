package dev.pubsubclickhouse.core.encode;

import static dev.pubsubclickhouse.core.encode.Rows.json;
import static dev.pubsubclickhouse.core.encode.Rows.oneColumn;
import static dev.pubsubclickhouse.core.encode.Rows.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.DefaultKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RowEncoderTest {

  private static String rejection(String type, String jsonValue) {
    RowBinaryOutput out = new RowBinaryOutput();
    try {
      oneColumn(type).encode(json("{\"v\":" + jsonValue + "}"), out);
    } catch (RowRejectedException e) {
      assertThat(out.size()).as("a rejected row leaves nothing behind").isZero();
      return e.getMessage();
    }
    throw new AssertionError(type + " accepted " + jsonValue);
  }

  @ParameterizedTest(name = "{0} rejects {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Int8|200|column 'v' (Int8) rejects 200: out of range [-128, 127]",
        "UInt8|-1|column 'v' (UInt8) rejects -1: out of range [0, 255]",
        "Int32|42.5|column 'v' (Int32) rejects 42.5: has a fractional part",
        "Int32|\"42.5\"|column 'v' (Int32) rejects \"42.5\": has a fractional part",
        "Int32|\"forty\"|column 'v' (Int32) rejects \"forty\": not a number",
        "Int32|true|column 'v' (Int32) rejects true: expected a number or a numeric string, got a boolean",
        "UInt64|18446744073709551616|column 'v' (UInt64) rejects 18446744073709551616: out of range [0, 18446744073709551615]",
        "Int64|1e30|column 'v' (Int64) rejects 1E+30: out of range [-9223372036854775808, 9223372036854775807]",
        "Decimal(9,2)|12345678.9|column 'v' (Decimal(9,2)) rejects 12345678.9: does not fit Decimal(9, 2): more than 7 integer digits",
        "Decimal(9,2)|\"NaN\"|column 'v' (Decimal(9,2)) rejects \"NaN\": not a number",
        "Float32|1e39|column 'v' (Float32) rejects 1E+39: out of range for Float32",
        "Float64|\"1e999\"|column 'v' (Float64) rejects \"1e999\": out of range for Float64",
        "Bool|2|column 'v' (Bool) rejects 2: expected true, false, 0 or 1",
        "Date|\"2026-02-30\"|column 'v' (Date) rejects \"2026-02-30\": no such date",
        "Date|\"1969-12-31\"|column 'v' (Date) rejects \"1969-12-31\": out of range for Date [1970-01-01, 2149-06-06]",
        "DateTime|\"2026-01-15 25:00:00\"|column 'v' (DateTime) rejects \"2026-01-15 25:00:00\": time of day out of range",
        "DateTime|\"yesterday\"|column 'v' (DateTime) rejects \"yesterday\": not a date-time (ISO-8601, YYYY-MM-DD hh:mm:ss, or epoch seconds)",
        "DateTime|\"2026-01-15T12:34:56+25:00\"|column 'v' (DateTime) rejects \"2026-01-15T12:34:56+25:00\": time zone offset out of range",
        "DateTime|-1|column 'v' (DateTime) rejects -1: out of range for DateTime [1970-01-01 00:00:00, 2106-02-07 06:28:15] (UTC)",
        "FixedString(2)|\"abc\"|column 'v' (FixedString(2)) rejects \"abc\": 3 bytes do not fit FixedString(2)",
        "UUID|\"not-a-uuid\"|column 'v' (UUID) rejects \"not-a-uuid\": not a UUID (8-4-4-4-12 hex digits)",
        "IPv4|\"1.2.3.256\"|column 'v' (IPv4) rejects \"1.2.3.256\": not an IPv4 address",
        "IPv6|\"example.com\"|column 'v' (IPv6) rejects \"example.com\": not an IPv6 address",
        "Enum8('a' = 1)|\"b\"|column 'v' (Enum8('a' = 1)) rejects \"b\": not one of the enum's names or numbers",
        "Enum8('a' = 1)|2|column 'v' (Enum8('a' = 1)) rejects 2: not one of the enum's numbers",
        "Array(Int8)|[1, 300]|column 'v' (Array(Int8)) rejects an array of 2 elements [1,300]: element 1 (300): out of range [-128, 127]",
        "Array(Int8)|{}|column 'v' (Array(Int8)) rejects an object with 0 fields {}: expected an array, got an object",
        "Map(String, UInt8)|{\"k\": -1}|column 'v' (Map(String, UInt8)) rejects an object with 1 fields {\"k\":-1}: key \"k\": out of range [0, 255]",
        "Tuple(Int8, String)|[1]|column 'v' (Tuple(Int8, String)) rejects an array of 1 elements [1]: expected 2 elements, got 1",
        "Tuple(a Int8, b String)|{\"a\": 1}|column 'v' (Tuple(a Int8, b String)) rejects an object with 1 fields {\"a\":1}: element b: null, but the type is not Nullable",
      })
  void rejectsValuesThatDoNotFit(String type, String value, String message) {
    assertThat(rejection(type, value)).isEqualTo(message);
  }

  @Test
  void aMissingValueWithoutDefaultRejectsTheRow() {
    assertThatThrownBy(() -> oneColumn("String").encode(json("{}"), new RowBinaryOutput()))
        .isInstanceOf(RowRejectedException.class)
        .hasMessage(
            "column 'v' (String) rejects (missing): a value is required (no DEFAULT, not Nullable)");
  }

  @Test
  void nullForANonNullableColumnWithoutDefaultRejectsTheRow() {
    assertThatThrownBy(() -> oneColumn("Int32").encode(json("{\"v\":null}"), new RowBinaryOutput()))
        .hasMessage(
            "column 'v' (Int32) rejects null: a value is required (no DEFAULT, not Nullable)");
  }

  @Test
  void aRowMustBeAnObject() {
    assertThatThrownBy(() -> oneColumn("Int32").encode(json("[1]"), new RowBinaryOutput()))
        .hasMessage("a row must be a JSON object, got an array");
  }

  @Test
  void aMissingValueAsksForTheDefaultWithTheFlagByte() throws Exception {
    RowEncoder encoder =
        RowEncoder.forTable(schema(ColumnDefinition.of("v", "Int32", DefaultKind.DEFAULT, "7")));
    RowBinaryOutput out = new RowBinaryOutput();
    encoder.encode(json("{}"), out);
    assertThat(out.toByteArray()).containsExactly(1);
  }

  @Test
  void aMissingNullableValueIsWrittenAsNull() throws Exception {
    RowBinaryOutput out = new RowBinaryOutput();
    oneColumn("Nullable(Int32)").encode(json("{}"), out);
    assertThat(out.toByteArray()).containsExactly(0, 1);
  }

  @Test
  void aMissingArrayIsEmpty() throws Exception {
    RowBinaryOutput out = new RowBinaryOutput();
    oneColumn("Array(Int32)").encode(json("{}"), out);
    assertThat(out.toByteArray()).containsExactly(0, 0);
  }

  @Test
  void materializedAndAliasColumnsAreNotWritten() {
    RowEncoder encoder =
        RowEncoder.forTable(
            schema(
                ColumnDefinition.of("a", "Int32"),
                ColumnDefinition.of("m", "Int32", DefaultKind.MATERIALIZED, "a + 1"),
                ColumnDefinition.of("l", "Int32", DefaultKind.ALIAS, "a + 2")));
    assertThat(encoder.columnNames()).containsExactly("a");
  }

  @Test
  void anUnsupportedTypeWithoutDefaultStopsThePlan() {
    assertThatThrownBy(() -> oneColumn("Variant(String, UInt64)"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "column 'v' of db.t has type Variant(String, UInt64), which cannot be written (and it has no DEFAULT)");
  }

  @Test
  void anUnsupportedTypeWithDefaultIsLeftToClickHouse() {
    RowEncoder encoder =
        RowEncoder.forTable(
            schema(
                ColumnDefinition.of("a", "Int32"),
                ColumnDefinition.of("d", "Dynamic", DefaultKind.DEFAULT, "1")));
    assertThat(encoder.columnNames()).containsExactly("a");
  }

  @Test
  void excerptsOfLongValuesAreBounded() {
    String message = rejection("UUID", "\"" + "x".repeat(10_000) + "\"");
    assertThat(message).contains("... (10000 chars)").hasSizeLessThan(200);
  }

  private static byte[] encoded(String type, String jsonValue) throws RowRejectedException {
    RowBinaryOutput out = new RowBinaryOutput();
    oneColumn(type).encode(json("{\"v\":" + jsonValue + "}"), out);
    return out.toByteArray();
  }

  /** The value bytes of a one-column row: without the leading "not DEFAULT" flag byte. */
  private static byte[] valueBytes(String type, String jsonValue) throws RowRejectedException {
    byte[] row = encoded(type, jsonValue);
    return java.util.Arrays.copyOfRange(row, 1, row.length);
  }

  private static byte[] littleEndian(long value, int width) {
    byte[] bytes = new byte[width];
    for (int i = 0; i < width; i++) {
      bytes[i] = (byte) (value >>> (8 * i));
    }
    return bytes;
  }

  @ParameterizedTest(name = "{0} rejects {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        // seconds x 10^9 exceeds Int64: stored as 2015-06-13 00:25:26.290448384 before
        "DateTime64(9, 'UTC')|\"2600-01-01 00:00:00\"|out of range for DateTime64(9) [1900-01-01 00:00:00.000000000, 2262-04-11 23:47:16.854775807] (UTC)",
        "DateTime64(9, 'UTC')|\"2262-04-11 23:47:16.854775808\"|out of range for DateTime64(9) [1900-01-01 00:00:00.000000000, 2262-04-11 23:47:16.854775807] (UTC)",
        "DateTime64(9, 'UTC')|\"2299-12-31 23:59:59\"|out of range for DateTime64(9) [1900-01-01 00:00:00.000000000, 2262-04-11 23:47:16.854775807] (UTC)",
        "DateTime64(8, 'UTC')|\"2300-01-01 00:00:00\"|out of range for DateTime64(8) [1900-01-01 00:00:00.00000000, 2299-12-31 23:59:59.99999999] (UTC)",
        // epoch seconds x 10^p beyond Int64: an ArithmeticException escaped the encoder before
        "DateTime64(9, 'UTC')|99999999999|out of range for DateTime64(9) [1900-01-01 00:00:00.000000000, 2262-04-11 23:47:16.854775807] (UTC)",
        "DateTime64(9, 'UTC')|\"-99999999999.5\"|out of range for DateTime64(9) [1900-01-01 00:00:00.000000000, 2262-04-11 23:47:16.854775807] (UTC)",
        "DateTime64(3)|999999999999|out of range for DateTime64(3) [1900-01-01 00:00:00.000, 2299-12-31 23:59:59.999] (UTC)",
        "DateTime64(0)|10413792000|out of range for DateTime64(0) [1900-01-01 00:00:00, 2299-12-31 23:59:59] (UTC)",
        // numeric text beyond Int32 was wrapped to an enum number before ("4294967297" became 1)
        "Enum8('a' = 1)|\"4294967297\"|not one of the enum's names or numbers",
        "Enum16('a' = 1, 'b' = -1)|\"-4294967297\"|not one of the enum's names or numbers",
        "Enum16('a' = 1)|\"18446744073709551617\"|not one of the enum's names or numbers",
      })
  void valuesBeyondTheirRangeRejectInsteadOfWrapping(String type, String value, String reason) {
    assertThat(rejection(type, value)).endsWith(": " + reason);
  }

  @Test
  void theLargestDateTime64OfNinePlacesIsTheLargestInt64() throws Exception {
    assertThat(valueBytes("DateTime64(9, 'UTC')", "\"2262-04-11 23:47:16.854775807\""))
        .containsExactly(littleEndian(Long.MAX_VALUE, 8));
    assertThat(valueBytes("DateTime64(9, 'UTC')", "\"9223372036.854775807\""))
        .containsExactly(littleEndian(Long.MAX_VALUE, 8));
    assertThat(valueBytes("DateTime64(8, 'UTC')", "\"2299-12-31 23:59:59.99999999\""))
        .containsExactly(littleEndian(1_041_379_199_999_999_999L, 8));
  }

  @ParameterizedTest(name = "{0} stores {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Decimal(3, 3)|0|0",
        "Decimal(3, 3)|\"0\"|0",
        "Decimal(3, 3)|0.0|0",
        "Decimal(3, 3)|-0|0",
        "Decimal(3, 3)|0E+5|0",
        "Decimal(3, 3)|0.999|999",
        "Decimal(3, 3)|-0.999|-999",
        "Decimal(9, 9)|\"0.000000001\"|1",
        "Decimal(9, 9)|-0.0|0",
      })
  void aDecimalWithoutIntegerDigitsStoresZeroAndFractions(String type, String value, long unscaled)
      throws Exception {
    assertThat(valueBytes(type, value)).containsExactly(littleEndian(unscaled, 4));
  }

  @Test
  void aDecimalWithoutIntegerDigitsRejectsOne() {
    assertThat(rejection("Decimal(3, 3)", "1"))
        .endsWith(": does not fit Decimal(3, 3): more than 0 integer digits");
  }

  @ParameterizedTest(name = "String rejects {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        // an otherwise ASCII string: the lone surrogate became a NUL byte before
        "\"a\\ud800b\"|column 'v' (String) rejects \"a\\ud800b\": a lone UTF-16 surrogate \\ud800 at character 1 is not text",
        "\"\\udc00\"|column 'v' (String) rejects \"\\udc00\": a lone UTF-16 surrogate \\udc00 at character 0 is not text",
        // with other non-ASCII text: it became '?' before
        "\"\u00e9\\ud83d\"|column 'v' (String) rejects \"\u00e9\\ud83d\": a lone UTF-16 surrogate \\ud83d at character 1 is not text",
        "\"\\ude80\\ud83d\"|column 'v' (String) rejects \"\\ude80\\ud83d\": a lone UTF-16 surrogate \\ude80 at character 0 is not text",
      })
  void aLoneSurrogateIsNotText(String value, String message) {
    assertThat(rejection("String", value)).isEqualTo(message);
  }

  @ParameterizedTest(name = "{0} rejects a lone surrogate")
  @CsvSource({
    "FixedString(8)",
    "Array(String)",
    "'Map(String, String)'",
    "LowCardinality(String)",
    "Nullable(String)"
  })
  void aLoneSurrogateIsNotTextInAnyStringType(String type) {
    String value =
        switch (type) {
          case "Array(String)" -> "[\"ok\", \"a\\ud800\"]";
          case "Map(String, String)" -> "{\"k\\ud800\": \"v\"}";
          default -> "\"a\\ud800\"";
        };
    assertThat(rejection(type, value)).contains("a lone UTF-16 surrogate \\ud800 at character 1");
  }

  @Test
  void aSurrogatePairIsText() throws Exception {
    assertThat(valueBytes("String", "\"a\\ud83d\\ude80\""))
        .containsExactly(5, 'a', 0xF0, 0x9F, 0x9A, 0x80);
  }

  @Test
  void excerptsNeverSplitASurrogatePair() {
    String value = "x".repeat(Excerpt.MAX_CHARS - 1) + "\ud83d\ude80".repeat(10);
    String message = rejection("UUID", Rows.JSON.valueToTree(value).toString());
    assertThat(RowBinaryOutput.utf8Length(message)).as(message).isNotNegative();
    assertThat(message).contains("x\"... (83 chars)");
  }

  @ParameterizedTest(name = "{0} rejects {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        // BigDecimal reads digits of any script: these were stored as 12
        "Int32|\"\u0661\u0662\"|not a number",
        "Decimal(9, 2)|\"\u0661\u0662\"|not a number",
        "DateTime|\"\u0661\u0662\"|not a date-time (ISO-8601, YYYY-MM-DD hh:mm:ss, or epoch seconds)",
        // Double.valueOf's Java forms: stored as 8.0, 1.5, 1.5 and 1.5 before
        "Float64|\"0x1p3\"|not a number",
        "Float32|\"1.5f\"|not a number",
        "Float64|\"1.5d\"|not a number",
        "Float64|\" 1.5\"|not a number",
        "Float64|\"Infinityx\"|not a number",
        "Float64|\"\"|not a number",
      })
  void numericTextIsAsciiDecimalText(String type, String value, String reason) {
    assertThat(rejection(type, value)).endsWith(": " + reason);
  }

  @ParameterizedTest(name = "Float64 reads {0}")
  @CsvSource({
    "'\"nan\"', NaN",
    "'\"-NaN\"', NaN",
    "'\"inf\"', Infinity",
    "'\"+Infinity\"', Infinity",
    "'\"-INF\"', -Infinity",
    "'\"-infinity\"', -Infinity",
    "'\"+1.5e3\"', 1500",
    "'\".5\"', 0.5",
    "'\"5.\"', 5",
  })
  void floatsReadNamesAndNumbersAsClickHouseDoes(String value, double expected) throws Exception {
    assertThat(valueBytes("Float64", value))
        .containsExactly(littleEndian(Double.doubleToRawLongBits(expected), 8));
  }

  /**
   * A double that is already infinite (BigQuery's FLOAT64, Avro's double) is stored as infinity, as
   * ClickHouse stores it; only a finite value the type cannot hold rejects.
   */
  @ParameterizedTest(name = "{0} keeps {1}")
  @CsvSource({
    "Float64, Infinity, 7FF0000000000000",
    "Float64, -Infinity, FFF0000000000000",
    "Float32, Infinity, 7F800000",
    "Float32, -Infinity, FF800000",
  })
  void anInfiniteDoubleIsStoredAsInfinity(String type, double value, String bits) throws Exception {
    RowBinaryOutput out = new RowBinaryOutput();
    oneColumn(type).encode(JsonNodeFactory.instance.objectNode().put("v", value), out);
    byte[] row = out.toByteArray();
    int width = type.equals("Float32") ? 4 : 8;
    assertThat(java.util.Arrays.copyOfRange(row, 1, row.length))
        .containsExactly(littleEndian(Long.parseUnsignedLong(bits, 16), width));
  }

  /**
   * A double with a whole value (Avro's and Protocol Buffers' double and float, BigQuery's FLOAT64)
   * is that integer exactly, as Java's cast and ClickHouse's toInt64 read it: its shortest decimal
   * text (1.152921504606847E18 for 2^60) is another integer beyond 2^53.
   */
  @ParameterizedTest(name = "{0} stores {1} as (long) {1}")
  @CsvSource({"Int64, 1152921504606846976", "UInt64, 9007199254740993", "Int64, -4.1e18"})
  void aWholeDoubleIsStoredAsItsExactInteger(String type, double value) throws Exception {
    RowBinaryOutput out = new RowBinaryOutput();
    oneColumn(type).encode(JsonNodeFactory.instance.objectNode().put("v", value), out);
    byte[] row = out.toByteArray();
    assertThat(java.util.Arrays.copyOfRange(row, 1, row.length))
        .containsExactly(littleEndian((long) value, 8));
    out = new RowBinaryOutput();
    oneColumn(type).encode(JsonNodeFactory.instance.objectNode().put("v", (float) value), out);
    row = out.toByteArray();
    assertThat(java.util.Arrays.copyOfRange(row, 1, row.length))
        .as("as a float")
        .containsExactly(littleEndian((long) (float) value, 8));
  }

  @Test
  void aFiniteDoubleBeyondFloat32Rejects() {
    RowBinaryOutput out = new RowBinaryOutput();
    assertThatThrownBy(
            () ->
                oneColumn("Float32")
                    .encode(JsonNodeFactory.instance.objectNode().put("v", 1e39), out))
        .hasMessage("column 'v' (Float32) rejects 1.0E39: out of range for Float32");
  }

  /** A NULL struct inside a struct: the tuple of its elements' NULLs, as its DEFAULT would be. */
  @Test
  void aNullTupleInsideATupleIsTheTupleOfItsElementsNulls() throws Exception {
    assertThat(
            valueBytes(
                "Tuple(a Nullable(Int32), b Tuple(c Nullable(String), d Tuple(e Nullable(Int8))))",
                "{\"a\":1,\"b\":null}"))
        .containsExactly(0, 1, 0, 0, 0, 1, 1);
  }

  @Test
  void aNullTupleWhoseElementsTakeNoNullRejects() {
    assertThat(rejection("Tuple(b Tuple(c Nullable(String), n Int32))", "{\"b\":null}"))
        .isEqualTo(
            "column 'v' (Tuple(b Tuple(c Nullable(String), n Int32))) rejects an object with 1 fields {\"b\":null}:"
                + " element b: element n: expected a number or a numeric string, got null");
  }

  /** Cutting 1e-999999999 to a few places once computed 10^999999999: hours for one value. */
  @ParameterizedTest(name = "{0} reads {1} at once")
  @CsvSource(
      delimiter = '|',
      value = {
        "Decimal(9, 2)|1e-999999999|0",
        "Decimal(9, 2)|\"-1e-999999999\"|0",
        "DateTime64(9, 'UTC')|1e-999999999|0",
        "DateTime64(9, 'UTC')|-1e-999999999|-1",
        "DateTime64(0, 'UTC')|\"-1e-999999999\"|-1",
        "DateTime64(3, 'UTC')|1.5e-3|1",
      })
  void aTinyNumberIsCutWithoutComputingItsDigits(String type, String value, long unscaled) {
    int width = type.startsWith("Decimal") ? 4 : 8;
    byte[] bytes =
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
            java.time.Duration.ofSeconds(5), () -> valueBytes(type, value));
    assertThat(bytes).containsExactly(littleEndian(unscaled, width));
  }

  @ParameterizedTest(name = "IPv6 reads {0}")
  @CsvSource({
    "::, 00000000000000000000000000000000",
    "::1, 00000000000000000000000000000001",
    "1::, 00010000000000000000000000000000",
    "1::2, 00010000000000000000000000000002",
    "2001:DB8::8a2e:370:7334, 20010db80000000000008a2e03707334",
    "1:2:3:4:5:6:7:8, 00010002000300040005000600070008",
    "1:2:3:4:5:6:7::, 00010002000300040005000600070000",
    "::2:3:4:5:6:7:8, 00000002000300040005000600070008",
    "::ffff:1.2.3.4, 00000000000000000000ffff01020304",
    "::1.2.3.4, 00000000000000000000000001020304",
    "1:2:3:4:5:6:1.2.3.4, 00010002000300040005000601020304",
    "::ffff:01.002.3.4, 00000000000000000000ffff01020304",
    "10.0.0.1, 00000000000000000000ffff0a000001",
  })
  void ipv6ReadsEveryTextForm(String text, String hex) throws Exception {
    assertThat(valueBytes("IPv6", "\"" + text + "\""))
        .containsExactly(java.util.HexFormat.of().parseHex(hex));
  }

  /**
   * InetAddress parsed these before: it reads five hex digits, and text that is not a literal it
   * looks up as a host name (the prefilter let digits of other scripts through).
   */
  @ParameterizedTest(name = "IPv6 rejects {0}")
  @CsvSource({
    "00000::1",
    "\uff11::",
    "\u0661::2",
    "1::2::3",
    ":1::",
    "1:",
    "1:::2",
    "::1:2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:1.2.3.4",
    "::ffff:1.2.3",
    "::1.2.3.4.5",
    "::ab.1.2.3",
    "fe80::1%eth0",
    "g::1",
    ":",
  })
  void ipv6RejectsWhatIsNotAnAddressWithoutLookingItUp(String text) {
    assertThat(rejection("IPv6", "\"" + text + "\"")).endsWith(": not an IPv6 address");
  }

  /**
   * A local time that a clock change skips has the offset after the change, as ClickHouse reads it;
   * java.time moved it forward by the gap instead (an hour, or a day, later than ClickHouse).
   */
  @ParameterizedTest(name = "{0} reads {1} as {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        // 02:00 -> 03:00 CEST: 02:30 is 00:30 UTC (01:30 CET); it was 01:30 UTC before
        "DateTime('Europe/Berlin')|2026-03-29 02:30:00|1774744200",
        // the hour that occurs twice: the earlier offset (CEST), as before
        "DateTime('Europe/Berlin')|2026-10-25 02:30:00|1792888200",
        "DateTime('America/New_York')|2026-03-08 02:30:00|1772951400",
        // Lord Howe's 30-minute change, 02:00 -> 02:30
        "DateTime('Australia/Lord_Howe')|2026-10-04 02:15:00|1791040500",
        // Kiritimati skipped 1994-12-31 whole (-10 -> +14): read at +14, a day before java.time
        "DateTime('Pacific/Kiritimati')|1994-12-31 17:24:00|788844240",
      })
  void aSkippedLocalTimeIsReadAsClickHouseReadsIt(String type, String text, long epochSecond)
      throws Exception {
    assertThat(valueBytes(type, "\"" + text + "\"")).containsExactly(littleEndian(epochSecond, 4));
  }

  @Test
  void aUuidIsAsciiHex() {
    // Character.digit read the full-width digit one as 1: it was stored as 11f0c404-...
    assertThat(rejection("UUID", "\"\uff11" + "1f0c404-5cb3-11e7-907b-a6006ad3dba0\""))
        .endsWith(": not a UUID (8-4-4-4-12 hex digits)");
  }

  /** The encoder wrote any value as JSON text; ClickHouse then refused the whole INSERT. */
  @ParameterizedTest(name = "JSON rejects {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "5|a number",
        "true|a boolean",
        "[1, 2]|an array",
        "\"[1, 2]\"|a string that is not",
        "\"x\"|a string that is not",
        "\"{\\\"a\\\": 1} x\"|a string that is not",
      })
  void aJsonColumnTakesAnObject(String value, String kind) {
    assertThat(rejection("JSON", value))
        .endsWith(": a JSON column takes an object or the JSON text of one, got " + kind);
  }

  /** BigQuery's JSON values arrive as text: the object it holds is sent, compact. */
  @Test
  void aJsonColumnTakesTheTextOfAnObject() throws Exception {
    assertThat(valueBytes("JSON", "\"{\\\"a\\\": [1, 2.50], \\\"b\\\": null}\""))
        .containsExactly(bytesOf("{\"a\":[1,2.50],\"b\":null}"));
    assertThat(rejection("JSON", "\"{\\\"a\\\": \\\"\\\\ud800\\\"}\""))
        .contains("a lone UTF-16 surrogate \\ud800");
  }

  /** A length-prefixed UTF-8 string of at most 127 bytes, as RowBinary writes it. */
  private static byte[] bytesOf(String text) {
    byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] out = new byte[utf8.length + 1];
    out[0] = (byte) utf8.length;
    System.arraycopy(utf8, 0, out, 1, utf8.length);
    return out;
  }

  /**
   * client-v2 read the type's 'tab\there' as "tabthere": the real name was refused, that one not.
   */
  @Test
  void enumNamesAreReadWithClickHouseEscapes() throws Exception {
    String type =
        "Enum8('tab\\there' = 1, 'it\\'s' = 2, 'back\\\\slash' = 3, 'dbl''q' = 4, 'p)' = 5)";
    assertThat(valueBytes(type, "\"tab\\there\"")).containsExactly(1);
    assertThat(valueBytes(type, "\"it's\"")).containsExactly(2);
    assertThat(valueBytes(type, "\"back\\\\slash\"")).containsExactly(3);
    assertThat(valueBytes(type, "\"dbl'q\"")).containsExactly(4);
    assertThat(valueBytes(type, "\"p)\"")).containsExactly(5);
    assertThat(rejection(type, "\"tabthere\""))
        .endsWith(": not one of the enum's names or numbers");
    assertThat(valueBytes("Nullable(" + type + ")", "\"tab\\there\"")).containsExactly(0, 1);
  }

  /**
   * client-v2 names the elements of an unnamed tuple "", which the encoder took for names: an
   * object was read by them, and {} was stored as (NULL).
   */
  @ParameterizedTest(name = "{0} rejects an object")
  @CsvSource({"Tuple(Nullable(Int8))", "'Tuple(Nullable(Int8), Nullable(String))'"})
  void anUnnamedTupleTakesOnlyAnArray(String type) {
    assertThat(rejection(type, "{}")).endsWith(": expected an array, got an object");
    assertThat(rejection(type, "{\"\": 1}")).endsWith(": expected an array, got an object");
  }

  @ParameterizedTest(name = "{0} rejects {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Date|1.5|not a whole number of days",
        "Date|99999999999999999999|out of range for Date [1970-01-01, 2149-06-06]",
        "Date32|-25568|out of range for Date32 [1900-01-01, 2299-12-31]",
        "Date|true|expected a date string (YYYY-MM-DD) or a number of days, got a boolean",
      })
  void aDateIsTextOrAWholeNumberOfDaysInRange(String type, String value, String reason) {
    assertThat(rejection(type, value)).endsWith(": " + reason);
  }

  @Test
  void unplacedFieldsAreTheFieldsNoInsertedColumnTakesInTheRowsOrder() {
    RowEncoder encoder =
        RowEncoder.forTable(
            schema(
                ColumnDefinition.of("a", "Int32"),
                ColumnDefinition.of("m", "Int32", DefaultKind.MATERIALIZED, "a * 2")));
    assertThat(encoder.unplacedFields(json("{\"a\":1}"))).isEmpty();
    assertThat(encoder.unplacedFields(json("{\"z\":1,\"a\":1,\"m\":3,\"b\":null}")))
        .as("a MATERIALIZED column takes no value from a row")
        .containsExactly("z", "m", "b");
  }
}
