package dev.pubsubclickhouse.core.encode;

import static dev.pubsubclickhouse.core.encode.Rows.json;
import static dev.pubsubclickhouse.core.encode.Rows.oneColumn;
import static dev.pubsubclickhouse.core.encode.Rows.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        "DateTime|-1|column 'v' (DateTime) rejects -1: out of range for DateTime [1970-01-01 00:00:00, 2106-02-07 06:28:15]",
        "FixedString(2)|\"abc\"|column 'v' (FixedString(2)) rejects \"abc\": 3 bytes do not fit FixedString(2)",
        "UUID|\"not-a-uuid\"|column 'v' (UUID) rejects \"not-a-uuid\": not a UUID (8-4-4-4-12 hex digits)",
        "IPv4|\"1.2.3.256\"|column 'v' (IPv4) rejects \"1.2.3.256\": not an IPv4 address",
        "IPv6|\"example.com\"|column 'v' (IPv6) rejects \"example.com\": not an IPv6 address",
        "Enum8('a' = 1)|\"b\"|column 'v' (Enum8('a' = 1)) rejects \"b\": not a number",
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
