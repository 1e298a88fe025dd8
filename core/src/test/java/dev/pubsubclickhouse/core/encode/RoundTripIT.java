package dev.pubsubclickhouse.core.encode;

import static dev.pubsubclickhouse.core.encode.Rows.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.insert.InsertColumns;
import dev.pubsubclickhouse.core.insert.TestInserters;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every supported type: encode JSON, INSERT into a real ClickHouse, SELECT back, compare. */
@ClickHouseTest
class RoundTripIT {
  private static final AtomicInteger TABLES = new AtomicInteger();
  private final TestDatabase database;

  RoundTripIT(TestDatabase database) {
    this.database = database;
  }

  /** Creates a table with the given columns, inserts the JSON rows, returns the table name. */
  private String insert(String columns, String... rows) throws Exception {
    String table = "t" + TABLES.incrementAndGet();
    database.execute("CREATE TABLE " + table + " (" + columns + ") ENGINE = Memory");
    TableName name = new TableName(database.name(), table);
    RowEncoder encoder = RowEncoder.forTable(new SchemaReader(database.client()).read(name));
    RowBinaryOutput out = new RowBinaryOutput();
    for (String row : rows) {
      encoder.encode(json(row), out);
    }
    TestInserters.of(database)
        .insert(
            name,
            new InsertColumns(
                encoder.columnNames(), encoder.columnTypes(), encoder.readsJsonAsString()),
            out,
            null);
    return table;
  }

  /** Creates a table with the given columns, ClickHouse itself reads the rows (JSONEachRow). */
  private String insertAsJsonEachRow(String columns, String... rows) {
    String table = "t" + TABLES.incrementAndGet();
    database.execute("CREATE TABLE " + table + " (" + columns + ") ENGINE = Memory");
    database.execute("INSERT INTO " + table + " FORMAT JSONEachRow " + String.join("\n", rows));
    return table;
  }

  /** Every row of both tables, ordered by their first column. */
  private void assertStoredAsClickHouseStores(String columns, String... rows) throws Exception {
    String ours = insert(columns, rows);
    String theirs = insertAsJsonEachRow(columns, rows);
    assertThat(database.query("SELECT * FROM " + ours + " ORDER BY 1"))
        .isEqualTo(database.query("SELECT * FROM " + theirs + " ORDER BY 1"));
  }

  private String roundTrip(String type, String jsonValue) throws Exception {
    String table = insert("v " + type, "{\"v\":" + jsonValue + "}");
    return database.query("SELECT v FROM " + table);
  }

  @ParameterizedTest(name = "{0} from {1} reads back as {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "UInt64|18446744073709551615|18446744073709551615",
        "UInt64|\"18446744073709551615\"|18446744073709551615",
        "Int8|-128|-128",
        "Int32|\"42\"|42",
        "Int32|42.0|42",
        "Int32|4.2e1|42",
        "Int64|-9223372036854775808|-9223372036854775808",
        "Int128|-170141183460469231731687303715884105728|-170141183460469231731687303715884105728",
        "UInt128|340282366920938463463374607431768211455|340282366920938463463374607431768211455",
        "Int256|\"-57896044618658097711785492504343953926634992332820282019728792003956564819968\"|-57896044618658097711785492504343953926634992332820282019728792003956564819968",
        "UInt256|115792089237316195423570985008687907853269984665640564039457584007913129639935|115792089237316195423570985008687907853269984665640564039457584007913129639935",
        "Float32|\"1.5\"|1.5",
        "Float32|0.25|0.25",
        "Float64|\"NaN\"|nan",
        "Float64|\"-Infinity\"|-inf",
        "Float64|1.7976931348623157E308|1.7976931348623157e308",
        "Decimal(9,2)|1234567.89|1234567.89",
        "Decimal(3,3)|0|0",
        "Decimal(3,3)|-0.999|-0.999",
        "Decimal(9,2)|\"1.239\"|1.23",
        "Decimal(9,2)|-1.239|-1.23",
        "Decimal32(3)|\"-0.5\"|-0.5",
        "Decimal(18,4)|12345678901234.5678|12345678901234.5678",
        "Decimal64(4)|\"-12345678901234.5678\"|-12345678901234.5678",
        "Decimal128(2)|1e30|1000000000000000000000000000000",
        "Decimal256(40)|\"1.0000000000000000000000000000000000000001\"|1.0000000000000000000000000000000000000001",
        "Decimal(38,10)|\"1234567890123456789012345678.0123456789\"|1234567890123456789012345678.0123456789",
        "Decimal(76,20)|\"-12345678901234567890123456789012345678901234567890.12345678901234567890\"|-12345678901234567890123456789012345678901234567890.1234567890123456789",
        "Bool|true|true",
        "Bool|\"false\"|false",
        "Bool|1|true",
        "String|{\"a\": [1, {\"b\": null}], \"c\": \"x\"}|{\"a\":[1,{\"b\":null}],\"c\":\"x\"}",
        "String|123.50|123.50",
        "FixedString(4)|\"ab\"|ab\\0\\0",
        "Date|\"2026-01-15\"|2026-01-15",
        "Date32|\"1900-01-01\"|1900-01-01",
        "Date32|\"2299-12-31\"|2299-12-31",
        "DateTime('UTC')|\"2026-01-15T12:34:56Z\"|2026-01-15 12:34:56",
        "DateTime('UTC')|\"2026-01-15T14:34:56+02:00\"|2026-01-15 12:34:56",
        "DateTime('UTC')|\"2025-12-30 12:00:00\"|2025-12-30 12:00:00",
        "DateTime('UTC')|1768480496|2026-01-15 12:34:56",
        "DateTime('UTC')|\"2026-01-15T12:34:56.999Z\"|2026-01-15 12:34:56",
        "DateTime('Europe/Berlin')|\"2025-12-30 12:00:00\"|2025-12-30 12:00:00",
        "DateTime('Asia/Tokyo')|\"2026-01-15T12:34:56Z\"|2026-01-15 21:34:56",
        "DateTime64(3, 'UTC')|\"2026-01-15T12:34:56.789Z\"|2026-01-15 12:34:56.789",
        "DateTime64(3, 'UTC')|\"2026-01-15 12:34:56.7891\"|2026-01-15 12:34:56.789",
        "DateTime64(6, 'UTC')|1768480496.123456|2026-01-15 12:34:56.123456",
        "DateTime64(9, 'UTC')|\"2026-01-15T12:34:56.123456789-01:30\"|2026-01-15 14:04:56.123456789",
        "DateTime64(3, 'UTC')|\"1900-01-01 00:00:00.001\"|1900-01-01 00:00:00.001",
        "DateTime64(9, 'UTC')|\"2262-04-11 23:47:16.854775807\"|2262-04-11 23:47:16.854775807",
        "DateTime64(9, 'UTC')|\"1900-01-01 00:00:00\"|1900-01-01 00:00:00.000000000",
        "DateTime64(8, 'UTC')|\"2299-12-31 23:59:59.99999999\"|2299-12-31 23:59:59.99999999",
        "UUID|\"61f0c404-5cb3-11e7-907b-a6006ad3dba0\"|61f0c404-5cb3-11e7-907b-a6006ad3dba0",
        "IPv4|\"192.168.1.254\"|192.168.1.254",
        "IPv6|\"2001:db8::8a2e:370:7334\"|2001:db8::8a2e:370:7334",
        "IPv6|\"10.0.0.1\"|::ffff:10.0.0.1",
        "Enum8('INFO' = 1, 'WARN' = 2)|\"WARN\"|WARN",
        "Enum8('INFO' = 1, 'WARN' = 2)|1|INFO",
        "Enum8('it''s' = -1, 'a,b' = 5)|\"a,b\"|a,b",
        "Enum8('it''s' = -1, 'a,b' = 5)|\"it's\"|it\\'s",
        "Enum16('big' = 1000)|\"1000\"|big",
        "Nullable(Int32)|null|\\N",
        "Nullable(Int32)|7|7",
        "LowCardinality(Nullable(String))|null|\\N",
        "LowCardinality(Nullable(String))|\"x\"|x",
        "LowCardinality(String)|\"y\"|y",
        "Array(Nullable(Int32))|[1, null, 3]|[1,NULL,3]",
        "Array(Array(String))|[[\"a\"], [], [\"b\", \"c\"]]|[['a'],[],['b','c']]",
        "Array(Int32)|[]|[]",
        "Map(String, UInt32)|{\"a\": 1, \"b\": 4294967295}|{'a':1,'b':4294967295}",
        "Map(UInt8, Array(String))|{\"1\": [\"x\"]}|{1:['x']}",
        "Tuple(Int32, String)|[1, \"x\"]|(1,'x')",
        "Tuple(a Int32, b Nullable(String))|{\"a\": 5}|(5,NULL)",
        "Tuple(a Int32, b Tuple(c String))|{\"b\": {\"c\": \"deep\"}, \"a\": 1}|(1,('deep'))",
        "SimpleAggregateFunction(sum, UInt64)|5|5",
        "JSON|{\"a\": {\"b\": 1}, \"c\": [\"x\"]}|{\"a\":{\"b\":1},\"c\":[\"x\"]}",
      })
  void valuesReadBackExactly(String type, String jsonValue, String expected) throws Exception {
    assertThat(roundTrip(type, jsonValue)).isEqualTo(expected);
  }

  @Test
  void stringsKeepEveryCharacter() throws Exception {
    String text = "tab\there\nnewline \"quotes\" back\\slash nul\u0000 emoji \uD83D\uDE80 é";
    String table = insert("v String", "{\"v\":" + Rows.JSON.writeValueAsString(text) + "}");
    assertThat(database.query("SELECT hex(v) FROM " + table))
        .isEqualTo(HexFormat.of().withUpperCase().formatHex(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void missingValuesTakeDefaultNullOrEmpty() throws Exception {
    String table =
        insert(
            "id UInt32, n Nullable(String), d String DEFAULT 'fallback', a Array(Int8),"
                + " e DateTime DEFAULT toDateTime('2020-01-01 00:00:00', 'UTC')",
            "{\"id\": 1}",
            "{\"id\": 2, \"n\": \"x\", \"d\": \"given\", \"a\": [1], \"unknown\": true}");
    assertThat(database.query("SELECT * FROM " + table + " ORDER BY id"))
        .isEqualTo(
            "1\t\\N\tfallback\t[]\t2020-01-01 00:00:00\n"
                + "2\tx\tgiven\t[1]\t2020-01-01 00:00:00");
  }

  @Test
  void aSimpleAggregateFunctionTakesNullAndMissingValuesAsItsTypeDoes() throws Exception {
    assertStoredAsClickHouseStores(
        "id UInt8, n SimpleAggregateFunction(anyLast, Nullable(String)),"
            + " a SimpleAggregateFunction(groupArrayArray, Array(String)),"
            + " m SimpleAggregateFunction(sumMap, Map(String, UInt64))",
        "{\"id\": 1}",
        "{\"id\": 2, \"n\": null, \"a\": null, \"m\": null}");
  }

  /**
   * ClickHouse's JSON type cannot parse these objects, and one of them failed the whole INSERT; we
   * reject them, and the JSON text of them, naming the column.
   */
  @ParameterizedTest(name = "JSON rejects {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"a\": 18446744073709551616}|integer at a out of range [-9223372036854775808, 18446744073709551615]",
        "{\"a\": -9223372036854775809}|integer at a out of range [-9223372036854775808, 18446744073709551615]",
        "{\"a\": {\"b\": [1, [12345678901234567890123]]}}|integer at a.b[1][0] out of range [-9223372036854775808, 18446744073709551615]",
        "{\"a\": 1.7976931348623159e308}|number at a out of range for Float64",
        "{\"a\": [{\"b\": -1e400}]}|number at a[0].b out of range for Float64",
        "{\"a.b\": 1, \"a\": {\"b\": 2}}|two values at path a.b (a key with dots is a path)",
        "{\"a\": {\"b\": []}, \"a.b\": 1}|two values at path a.b (a key with dots is a path)",
        "{\"a\": [{\"b\": {\"c\": 1}, \"b.c\": 2}]}|two values at path a[0].b.c (a key with dots is a path)",
      })
  void aJsonColumnRejectsWhatClickHouseCannotParse(String object, String reason) throws Exception {
    String columns = "id UInt8, v JSON";
    assertThatThrownBy(() -> insertAsJsonEachRow(columns, "{\"id\": 1, \"v\": " + object + "}"))
        .rootCause()
        .hasMessageContaining("Code: 117.");
    for (String value : new String[] {object, Rows.JSON.writeValueAsString(object)}) {
      assertThatThrownBy(() -> insert(columns, "{\"id\": 1, \"v\": " + value + "}"))
          .isInstanceOf(RowRejectedException.class)
          .hasMessageStartingWith("column 'v' (JSON) rejects ")
          .hasMessageEndingWith(": " + reason);
    }
  }

  /** The edges of what ClickHouse's JSON type parses, stored as it stores them. */
  @ParameterizedTest(name = "JSON stores {0}")
  @ValueSource(
      strings = {
        "{\"a\": 18446744073709551615, \"b\": -9223372036854775808}",
        "{\"a\": 1.7976931348623157e308, \"b\": -1.7976931348623158e308, \"c\": 1e-400}",
        "{\"a\": 100000000000000000000.0}",
        "{\"a\": 1, \"a.b\": 2, \"c\": {\"d\": 3}, \"c.e\": 4, \"f.g\": {}, \"f\": {\"g\": 5}}",
        "{\"a\": null, \"a.b\": 1, \"c\": [[1]], \"c[0]\": 2}",
        "{\"a\": [{\"b\": 1}, {\"b\": 2, \"c.b\": 3}]}",
      })
  void aJsonColumnStoresTheEdgesOfWhatClickHouseParses(String object) throws Exception {
    assertStoredAsClickHouseStores("id UInt8, v JSON", "{\"id\": 1, \"v\": " + object + "}");
  }

  @Test
  void anEphemeralColumnFeedsTheDefaultOfAnother() throws Exception {
    String table =
        insert("raw String EPHEMERAL, len UInt64 DEFAULT length(raw)", "{\"raw\": \"abcd\"}", "{}");
    assertThat(database.query("SELECT len FROM " + table + " ORDER BY len")).isEqualTo("0\n4");
  }

  @Test
  void materializedColumnsAreComputedByClickHouse() throws Exception {
    String table =
        insert("a Int32, m Int32 MATERIALIZED a * 2, al Int32 ALIAS a + 1", "{\"a\": 21}");
    assertThat(database.query("SELECT a, m, al FROM " + table)).isEqualTo("21\t42\t22");
  }

  @Test
  void theSeedRowLandsAsSent() throws Exception {
    String table =
        insert(
            "event_time DateTime, service String, level String, message String",
            "{\"event_time\":\"2025-12-30 12:00:00\",\"service\":\"api\",\"level\":\"INFO\","
                + "\"message\":\"PRE-DATAFLOW TEST\"}");
    assertThat(database.query("SELECT * FROM " + table))
        .isEqualTo("2025-12-30 12:00:00\tapi\tINFO\tPRE-DATAFLOW TEST");
  }
}
