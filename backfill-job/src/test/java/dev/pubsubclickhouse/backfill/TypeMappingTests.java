package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.record;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.pubsubclickhouse.testing.bigquery.BigQueryRows;
import dev.pubsubclickhouse.testing.bigquery.BigQueryTable;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How BigQuery's values arrive in ClickHouse columns, in a table that exists or in one {@code
 * --createTable} makes from the BigQuery schema.
 */
interface TypeMappingTests extends BackfillFixture {
  @Test
  default void everyBigQueryTypeArrivesInItsClickHouseColumn() {
    ArrayNode fields =
        fields(
            "i8 INTEGER",
            "u16 INTEGER",
            "i64 INTEGER",
            "f FLOAT",
            "n NUMERIC",
            "bn BIGNUMERIC",
            "b BOOLEAN",
            "s STRING",
            "e STRING",
            "fs STRING",
            "d DATE",
            "dt DATETIME",
            "dt64 DATETIME",
            "ts TIMESTAMP",
            "arr INTEGER REPEATED");
    ArrayNode structFields = fields("x INTEGER", "y STRING");
    fields.add(BigQueryRows.field("st", "RECORD", "NULLABLE", structFields));
    fields.addAll(fields("by BYTES", "js JSON", "geo GEOGRAPHY", "tm TIME", "nul STRING"));
    BigQueryTable all = bigQuery().table("ds", "all_types", fields);
    all.rows.add(
        row(
            "-128",
            "65535",
            "9223372036854775807",
            "1.5",
            "12345678901234567890.123456789",
            "0.12345678901234567890123456789012345678",
            "true",
            "héllo",
            "b",
            "abcd",
            "2026-01-15",
            "2026-01-15T12:34:56",
            "2026-01-15T12:34:56.123456",
            "1768480496123456",
            List.of("1", "2", "3"),
            record("7", "seven"),
            "cmF3Ynl0ZXM=",
            "{\"k\":[1,2]}",
            "POINT(1 2)",
            "12:34:56.500000",
            null));
    db().execute(
            "CREATE TABLE all_types (i8 Int8, u16 UInt16, i64 Int64, f Float64, n Decimal(38, 9),"
                + " bn Decimal(76, 38), b Bool, s String, e Enum8('a' = 1, 'b' = 2), fs FixedString(4),"
                + " d Date, dt DateTime, dt64 DateTime64(6), ts DateTime64(6, 'UTC'), arr Array(Int32),"
                + " st Tuple(x Int64, y String), by String, js String, geo String, tm String,"
                + " nul Nullable(String)) ENGINE = MergeTree ORDER BY i8");

    JobRun run = copy(environment(), "all_types", "all_types");

    run.assertSucceeded();
    assertThat(db().query("SELECT * FROM all_types"))
        .isEqualTo(
            "-128\t65535\t9223372036854775807\t1.5\t12345678901234567890.123456789"
                + "\t0.12345678901234567890123456789012345678\ttrue\théllo\tb\tabcd\t2026-01-15"
                + "\t2026-01-15 12:34:56\t2026-01-15 12:34:56.123456\t2026-01-15 12:34:56.123456"
                + "\t[1,2,3]\t(7,'seven')\trawbytes\t{\"k\":[1,2]}\tPOINT(1 2)\t12:34:56.500000\t\\N");
  }

  /** The column plan calls FLOAT64 into Float64 or Float32 exact: infinities included. */
  @Test
  default void anInfiniteFloat64ArrivesAsInfinity() {
    sourceTable(
        "floats",
        fields("id INTEGER", "f64 FLOAT", "f32 FLOAT"),
        row("1", "Infinity", "Infinity"),
        row("2", "-Infinity", "-Infinity"),
        row("3", "1.5", "1.5"));
    db().execute(
            "CREATE TABLE floats (id UInt32, f64 Float64, f32 Float32) ENGINE = MergeTree ORDER BY id");

    JobRun run = copy(environment(), "floats", "floats");

    run.assertSucceeded();
    assertThat(
            db().query("SELECT groupArray((id, f64, f32)) FROM (SELECT * FROM floats ORDER BY id)"))
        .isEqualTo("[(1,inf,inf),(2,-inf,-inf),(3,1.5,1.5)]");
  }

  @Test
  default void aJsonFieldFillsAJsonColumn() {
    sourceTable(
        "json_source",
        fields("id INTEGER", "payload JSON"),
        row("1", "{\"user\":{\"id\":42},\"tags\":[\"a\"]}"));
    db().execute(
            "CREATE TABLE json_target (id UInt8, payload JSON) ENGINE = MergeTree ORDER BY id");

    JobRun run = copy(environment(), "json_source", "json_target");

    run.assertSucceeded();
    assertThat(db().query("SELECT payload.user.id, payload.tags FROM json_target"))
        .isEqualTo("42\t['a']");
  }

  /** A NULL struct inside a struct, REQUIRED or not, arrives as the tuple of its leaves' NULLs. */
  @Test
  default void aNullStructInsideAStructArrivesAsATupleOfNulls() {
    ArrayNode fields = fields("id INTEGER REQUIRED");
    ArrayNode geo = fields("city STRING");
    geo.add(BigQueryRows.field("region", "RECORD", "NULLABLE", fields("name STRING")));
    fields.add(BigQueryRows.field("geo", "RECORD", "REQUIRED", geo));
    ArrayNode device = fields("category STRING");
    device.add(BigQueryRows.field("web_info", "RECORD", "NULLABLE", fields("browser STRING")));
    fields.add(BigQueryRows.field("device", "RECORD", "NULLABLE", device));
    BigQueryTable source = bigQuery().table("ds", "inner_null", fields);
    source.rows.add(row("1", record("Paris", record("IDF")), record("desktop", record("Chrome"))));
    source.rows.add(row("2", record("Oslo", null), record("mobile", null)));

    JobRun run = copy(environment(), "inner_null", "inner_null", "--createTable");

    run.assertSucceeded();
    assertThat(db().query("SELECT * FROM inner_null ORDER BY id FORMAT TSV"))
        .isEqualTo(
            "1\t('Paris',('IDF'))\t('desktop',('Chrome'))\n2\t('Oslo',(NULL))\t('mobile',(NULL))");
  }

  /**
   * {@code --createTable} makes the table from the BigQuery schema, and a run fills it: every type
   * of the Dataflow template's type table arrives with its value.
   */
  @Test
  default void createTableMakesTheTableFromTheBigQuerySchemaAndEveryTypeRoundTrips() {
    ArrayNode fields =
        fields(
            "id INTEGER REQUIRED",
            "i64 INTEGER",
            "f FLOAT",
            "n NUMERIC",
            "bn BIGNUMERIC",
            "b BOOLEAN",
            "s STRING",
            "by BYTES",
            "d DATE",
            "dt DATETIME",
            "tm TIME",
            "ts TIMESTAMP",
            "geo GEOGRAPHY",
            "js JSON",
            "arr INTEGER REPEATED");
    fields.add(BigQueryRows.field("st", "RECORD", "NULLABLE", fields("x INTEGER", "y STRING")));
    BigQueryTable source = bigQuery().table("ds", "created", fields);
    source.rows.add(
        row(
            "1",
            "-9223372036854775808",
            "-2.5",
            "-12345678901234567890.123456789",
            "0.00000000000000000000000000000000000001",
            "false",
            "naïve ☃",
            "AAEC/w==",
            "1970-01-01",
            "2026-01-15T12:34:56.123456",
            "23:59:59.999999",
            "1768480496123456",
            "POINT(-122.35 47.62)",
            "{\"a\":null}",
            List.of("-1", "0", "1"),
            record("7", "seven")));
    source.rows.add(
        row(
            "2", null, null, null, null, null, null, null, null, null, null, null, null, null,
            List.of(), null));
    JobRun dryRun = copy(environment(), "created", "created", "--createTable", "--dryRun");
    dryRun.assertSucceeded();
    assertThat(dryRun.out())
        .contains(
            "CREATE TABLE IF NOT EXISTS `"
                + db().name()
                + "`.`created`\n(\n    `id` Int64,\n    `i64` Nullable(Int64),\n")
        .contains(
            "    `st` Tuple(x Nullable(Int64), y Nullable(String)) DEFAULT tuple(NULL, NULL)\n)\n"
                + "ENGINE = MergeTree\nORDER BY `id`\n")
        .contains("bn      Nullable(Decimal(76, 38))");
    assertThat(db().query("EXISTS TABLE created")).isEqualTo("0");

    JobRun run = copy(environment(), "created", "created", "--createTable");

    run.assertSucceeded();
    assertThat(db().query("SELECT * EXCEPT by, hex(by) FROM created ORDER BY id FORMAT TSV"))
        .isEqualTo(
            "1\t-9223372036854775808\t-2.5\t-12345678901234567890.123456789"
                + "\t0.00000000000000000000000000000000000001\tfalse\tnaïve ☃"
                + "\t1970-01-01\t2026-01-15 12:34:56.123456\t23:59:59.999999"
                + "\t2026-01-15 12:34:56.123456\tPOINT(-122.35 47.62)\t{\"a\":null}\t[-1,0,1]"
                + "\t(7,'seven')\t000102FF\n"
                + "2"
                + "\t\\N".repeat(12)
                + "\t[]\t(NULL,NULL)\t\\N");
  }

  /**
   * A NULLABLE STRUCT holding a STRUCT and an ARRAY (GA4's device.web_info): the column's DEFAULT,
   * which stands for a NULL struct, is a tuple of its elements' empty values, nested alike.
   */
  @Test
  default void createTableMakesANullableStructOfAStructAndANullStructIsItsDefault() {
    ArrayNode device = fields("category STRING", "tags STRING REPEATED");
    device.add(BigQueryRows.field("web_info", "RECORD", "NULLABLE", fields("browser STRING")));
    ArrayNode fields = fields("id INTEGER REQUIRED");
    fields.add(BigQueryRows.field("device", "RECORD", "NULLABLE", device));
    BigQueryTable source = bigQuery().table("ds", "nested", fields);
    source.rows.add(row("1", record("desktop", List.of("a", "b"), record("Chrome"))));
    source.rows.add(row("2", null));
    JobRun dryRun = copy(environment(), "nested", "nested", "--createTable", "--dryRun");
    JobRun run = copy(environment(), "nested", "nested", "--createTable");

    dryRun.assertSucceeded();
    assertThat(dryRun.out())
        .contains(
            "    `device` Tuple(category Nullable(String), tags Array(String),"
                + " web_info Tuple(browser Nullable(String)))"
                + " DEFAULT tuple(NULL, [], tuple(NULL))\n");
    run.assertSucceeded();
    assertThat(db().query("SELECT * FROM nested ORDER BY id FORMAT TSV"))
        .isEqualTo("1\t('desktop',['a','b'],('Chrome'))\n2\t(NULL,[],(NULL))");
  }

  /** A CREATE TABLE ClickHouse refuses is named as such, with ClickHouse's reason. */
  @Test
  default void aCreateTableClickHouseRefusesIsNamedWithItsReason() {
    sourceTable("refused_ddl", fields("id INTEGER"), row("1"));

    JobRun run =
        copy(
            environment(),
            "refused_ddl",
            "refused_ddl",
            "--createTable",
            "--orderBy=(no_such_column)");

    run.assertFailed()
        .contains(
            "backfill failed before reading: ClickHouse refused the CREATE TABLE of --createTable:"
                + " Code: 47.");
  }
}
