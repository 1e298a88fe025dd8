package dev.pubsubclickhouse.core.encode.differential;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertColumns;
import dev.pubsubclickhouse.core.insert.TestInserters;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.values.Expectation;
import dev.pubsubclickhouse.testing.values.Expectation.Refuse;
import dev.pubsubclickhouse.testing.values.Expectation.Store;
import dev.pubsubclickhouse.testing.values.FuzzType.ArrayType;
import dev.pubsubclickhouse.testing.values.FuzzType.DecimalType;
import dev.pubsubclickhouse.testing.values.FuzzType.FloatType;
import dev.pubsubclickhouse.testing.values.FuzzType.JsonType;
import dev.pubsubclickhouse.testing.values.FuzzType.MapType;
import dev.pubsubclickhouse.testing.values.FuzzType.NullableType;
import dev.pubsubclickhouse.testing.values.FuzzType.StringType;
import dev.pubsubclickhouse.testing.values.FuzzType.TupleType;
import dev.pubsubclickhouse.testing.values.JsonText;
import dev.pubsubclickhouse.testing.values.TwinTable;
import dev.pubsubclickhouse.testing.values.TwinTable.Column;
import dev.pubsubclickhouse.testing.values.ValueFuzz;
import dev.pubsubclickhouse.testing.values.ValueGenerator;
import dev.pubsubclickhouse.testing.values.ValueRules;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The seeded differential fuzz of the encoder against ClickHouse itself. Random tables over every
 * type of the README's table (all widths, precisions, scales, time zones; Nullable, LowCardinality,
 * Array, Map and Tuple nesting) get random rows of JSON values, edge and out-of-range ones among
 * them. Each row is encoded by {@link RowEncoder} and inserted into one table; the documented rules
 * ({@link ValueRules}, written out independently) say for each value whether it must be stored and
 * in what canonical form ClickHouse's own JSON parser reads the same value, and those forms go into
 * a twin table with the same schema ({@link TwinTable}). Then:
 *
 * <ul>
 *   <li>a row the rules store is stored by us, and every column reads back from our table exactly
 *       as from the twin;
 *   <li>a row the rules refuse is refused by us, naming the first column the rules refuse;
 *   <li>no exception but a rejection ever leaves the encoder, ClickHouse accepts every byte we
 *       send, and every documented difference is used by some value of the run.
 * </ul>
 *
 * {@code -Dvalues.fuzz.seed=N} replays a run; {@code -Dvalues.fuzz.values=N} sets how many values
 * it checks (100,000 by default, about a minute; scripts/soak runs more). A failure prints the seed
 * and every mismatch with its table, type, value, canonical form and both stored texts.
 */
@ClickHouseTest
class ValueDifferentialIT {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final int ROWS_PER_TABLE = 100;
  private static final int MAX_REPORTED = 40;

  private final TestDatabase database;
  private final ClickHouseInserter inserter;
  private final List<String> mismatches = new ArrayList<>();
  private final Map<String, Integer> outcomes = new TreeMap<>();
  private final Map<String, String> schemas = new HashMap<>();

  /** Every value of a row compared column by column, and one for each row refused as expected. */
  private long checkedValues;

  ValueDifferentialIT(TestDatabase database) {
    this.database = database;
    this.inserter = TestInserters.of(database);
  }

  /** One generated row: its text, what the rules expect, and what our encoder did with it. */
  private static final class Row {
    final int id;
    final String json;
    final JsonNode parsed;
    final List<Expectation> expectations;
    int start = -1;
    int end = -1;
    String refusedColumn;
    String refusal;

    Row(int id, String json, JsonNode parsed, List<Expectation> expectations) {
      this.id = id;
      this.json = json;
      this.parsed = parsed;
      this.expectations = expectations;
    }

    boolean storedByUs() {
      return start >= 0;
    }
  }

  @Test
  void everyValueIsStoredAsClickHouseReadsItOrRefusedByADocumentedRule() throws Exception {
    long seed = Long.getLong("values.fuzz.seed", 20_251_201L);
    long target = Long.getLong("values.fuzz.values", 100_000L);
    ValueFuzz fuzz = ValueFuzz.seeded(seed);
    ValueRules rules = fuzz.rules();
    long started = System.nanoTime();
    int tables = 0;
    try {
      while (checkedValues < target && mismatches.size() <= MAX_REPORTED * 5) {
        fuzzTable("t" + tables++, fuzz.columns(10), fuzz.values(), rules, fuzz.random());
      }
    } catch (RuntimeException | AssertionError e) {
      throw new AssertionError("seed " + seed + " (-Dvalues.fuzz.seed=" + seed + "): " + e, e);
    }
    String summary =
        String.format(
            Locale.ROOT,
            "seed=%d tables=%d values=%d seconds=%.1f outcomes=%s rules=%s",
            seed,
            tables,
            checkedValues,
            (System.nanoTime() - started) / 1e9,
            outcomes,
            rules.used);
    System.out.println("RESULT values fuzz: " + summary);
    record(summary, seed);
    assertThat(mismatches)
        .as(
            "seed %d (-Dvalues.fuzz.seed=%d): %d mismatches, the first %d:%n%s",
            seed,
            seed,
            mismatches.size(),
            Math.min(MAX_REPORTED, mismatches.size()),
            String.join("\n\n", mismatches.subList(0, Math.min(MAX_REPORTED, mismatches.size()))))
        .isEmpty();
    assertThat(checkedValues).as("values checked").isGreaterThanOrEqualTo(target);
    assertThat(outcomes.getOrDefault("row stored", 0))
        .as("most rows are stored, so that most values are compared")
        .isGreaterThan(outcomes.getOrDefault("row refused", 0));
    assertThat(rules.unused()).as("documented rules no value exercised").isEmpty();
  }

  /**
   * Every spelling of a negative zero, in each type through which a JSON number reaches a float,
   * against ClickHouse reading the very same JSON text. The fuzz cannot see a lost sign: its rules
   * derive the canonical form from the row as we parsed it, and BigDecimal has no -0. Values are
   * compared as text, where ClickHouse shows -0, and floats also by their bits, as -0 = 0.
   */
  @Test
  void aNegativeZeroIsStoredAsClickHouseReadsTheSameJson() {
    FloatType float32 = new FloatType(true);
    FloatType float64 = new FloatType(false);
    List<Column> columns =
        List.of(
            new Column("f32", float32),
            new Column("f64", float64),
            new Column("s", new StringType()),
            new Column("n", new NullableType(float64)),
            new Column("a", new ArrayType(new NullableType(float32))),
            new Column("m", new MapType(new StringType(), float64)),
            new Column("t", new TupleType(List.of(float64, new StringType()), null)),
            new Column("d", new DecimalType(9, 2, false)),
            new Column("j", new JsonType()));
    List<String> zeros = List.of("-0", "-0.0", "-0.000", "-0e5", "-0E-3", "-0.0e+2");
    String template =
        "{\"id\":$id,\"f32\":$z,\"f64\":$z,\"s\":$z,\"n\":$z,\"a\":[$z,0,null,$z],"
            + "\"m\":{\"k\":$z},\"t\":[$z,\"x\"],\"d\":$z,\"j\":{\"a\":$z,\"b\":[$z]}}";
    String table = "negative_zeros";
    String twin = table + "_twin";
    storeTheSameJsonBothWays(table, columns, template, zeros);
    String bits =
        "SELECT id, reinterpretAsUInt32(f32), reinterpretAsUInt64(f64),"
            + " reinterpretAsUInt64(assumeNotNull(n)),"
            + " arrayMap(x -> reinterpretAsUInt32(ifNull(x, 1)), a),"
            + " reinterpretAsUInt64(m['k']), reinterpretAsUInt64(t.1) FROM ";
    String theirBits = database.query(bits + twin + " ORDER BY id");
    assertThat(theirBits.split("\n"))
        .as("ClickHouse itself stores -0.0 (sign bit only)")
        .allSatisfy(row -> assertThat(row).contains("\t9223372036854775808\t"));
    assertThat(database.query(bits + table + " ORDER BY id")).isEqualTo(theirBits);
  }

  /**
   * A number given to a String keeps its text as written, as ClickHouse keeps it (BigDecimal would
   * write 1e3 as 1E+3 and 0.0000001 as 1E-7); so do the numbers of an array or object given to a
   * String, whose text is otherwise compact. The fuzz cannot see this either: it writes the twin's
   * JSON from the row as we parsed it.
   */
  @Test
  void aNumberGivenToAStringKeepsItsTextAsWritten() {
    List<Column> columns =
        List.of(
            new Column("s", new StringType()),
            new Column("n", new NullableType(new StringType())),
            new Column("a", new ArrayType(new StringType())),
            new Column("m", new MapType(new StringType(), new StringType())),
            new Column("c", new StringType()));
    List<String> numbers =
        List.of(
            "1e3",
            "1E3",
            "1e+3",
            "1E-3",
            "1.5e-3",
            "-2.50E+10",
            "0.1e1",
            "0.0000001",
            "-0.00000012",
            "0.0000012",
            "0.000001",
            "0.00000000",
            "0.0000000",
            "123.50",
            "-7",
            "1.0",
            "12345678901234567890123",
            "1e400",
            "1e-400",
            "-0e5",
            "-0.00000000");
    String template =
        "{\"id\":$id,\"s\":$z,\"n\":$z,\"a\":[$z,\"x\",$z],\"m\":{\"k\":$z},"
            + "\"c\":[$z,{\"k\":[$z,true]}]}";
    storeTheSameJsonBothWays("numbers_as_written", columns, template, numbers);
  }

  /**
   * Exponent and many-zero spellings in Float64, Float32, Decimal256 and a JSON column are stored
   * as ClickHouse reads the same JSON text. A JSON column gets the number's text as written:
   * before, 9.223372036854775807e18 reached it as 9223372036854775807, an Int64 where ClickHouse
   * has a Float64.
   */
  @Test
  void aNumberSpelledWithAnExponentIsStoredAsClickHouseReadsIt() {
    List<Column> columns =
        List.of(
            new Column("f", new FloatType(false)),
            new Column("f32", new FloatType(true)),
            new Column("d2", new DecimalType(76, 20, false)),
            new Column("j", new JsonType()),
            new Column("s", new StringType()));
    List<String> numbers =
        List.of(
            "1e3",
            "1E+3",
            "1.5e-3",
            "1E0",
            "100e-2",
            "0.0000001",
            "0.00000000",
            "2e1",
            "9.223372036854775807e18",
            "0.0000000000001e13",
            "1e-400",
            "-1.5E-7",
            "123456789.123456789e-5",
            "-0e5",
            "12345678901234567890.5",
            "-0.0000000");
    String template = "{\"id\":$id,\"f\":$z,\"f32\":$z,\"d2\":$z,\"j\":{\"a\":$z},\"s\":$z}";
    storeTheSameJsonBothWays("exponent_numbers", columns, template, numbers);
  }

  /**
   * Stores each of {@code values} put into {@code template} (for $z, and $id) in {@code table}
   * through our encoder and in its twin as ClickHouse reads the very same JSON text, then compares
   * every value as text.
   */
  private void storeTheSameJsonBothWays(
      String table, List<Column> columns, String template, List<String> values) {
    String twin = table + "_twin";
    String schema = TwinTable.columnsSql(columns);
    TwinTable.create(database, table, schema + " ENGINE = Memory");
    TwinTable.create(database, twin, schema + " ENGINE = Memory");
    TableName ours = new TableName(database.name(), table);
    RowEncoder encoder = RowEncoder.forTable(new SchemaReader(database.client()).read(ours));
    RowBinaryOutput out = new RowBinaryOutput();
    StringBuilder lines = new StringBuilder();
    for (int id = 0; id < values.size(); id++) {
      String json = template.replace("$id", Integer.toString(id)).replace("$z", values.get(id));
      try {
        encoder.encode(JsonPayloads.rows(json.getBytes(StandardCharsets.UTF_8)).get(0), out);
      } catch (RowRejectedException | PayloadRejectedException e) {
        throw new AssertionError(json + ": " + e.getMessage(), e);
      }
      lines.append(json).append('\n');
    }
    assertThat(insertEncoded(ours, encoder, out)).as("our INSERT").isNull();
    assertThat(TwinTable.insert(database, twin, lines.toString())).as("the twin's").isNull();

    Map<Integer, String[]> ourValues = TwinTable.read(database, table, columns);
    Map<Integer, String[]> theirValues = TwinTable.read(database, twin, columns);
    SoftAssertions stored = new SoftAssertions();
    for (int id = 0; id < values.size(); id++) {
      for (int i = 0; i < columns.size(); i++) {
        stored
            .assertThat(TwinTable.shown(ourValues.get(id)[i]))
            .as("%s from %s", columns.get(i).name(), values.get(id))
            .isEqualTo(TwinTable.shown(theirValues.get(id)[i]));
      }
    }
    stored.assertAll();
  }

  private void fuzzTable(
      String table, List<Column> columns, ValueGenerator values, ValueRules rules, Random random)
      throws Exception {
    String schema = TwinTable.columnsSql(columns);
    schemas.put(table, schema);
    schemas.put(table + "_twin", schema);
    TwinTable.create(database, table, schema + " ENGINE = Memory");
    TwinTable.create(database, table + "_twin", schema + " ENGINE = Memory");
    TableName ours = new TableName(database.name(), table);
    RowEncoder encoder = RowEncoder.forTable(new SchemaReader(database.client()).read(ours));

    RowBinaryOutput out = new RowBinaryOutput();
    List<Row> rows = new ArrayList<>();
    for (int id = 0; id < ROWS_PER_TABLE; id++) {
      ObjectNode generated = NODES.objectNode().put("id", id);
      for (Column column : columns) {
        // Now and then missing or null: the column's NULL, empty container, or a refusal.
        double roll = random.nextDouble();
        if (roll >= 0.005) {
          generated.set(
              column.name(), roll < 0.01 ? NODES.nullNode() : values.value(column.type()));
        }
      }
      String json = JsonText.write(generated);
      JsonNode parsed = JsonPayloads.rows(json.getBytes(StandardCharsets.UTF_8)).get(0);
      Row row = new Row(id, json, parsed, rules.expectRow(columns, parsed));
      encode(encoder, row, out);
      rows.add(row);
    }

    List<Row> twinRows = new ArrayList<>();
    for (Row row : rows) {
      judgeEncoding(table, columns, row, twinRows);
    }
    insertOurs(ours, encoder, out, rows.stream().filter(Row::storedByUs).toList(), table);
    insertTwin(table + "_twin", columns, twinRows);
    compareStored(table, columns, twinRows);
    if (mismatches.isEmpty()) {
      database.execute("DROP TABLE " + table);
      database.execute("DROP TABLE " + table + "_twin");
    }
  }

  private void encode(RowEncoder encoder, Row row, RowBinaryOutput out) {
    int start = out.size();
    try {
      encoder.encode(row.parsed, out);
      row.start = start;
      row.end = out.size();
    } catch (RowRejectedException e) {
      row.refusedColumn = e.column();
      row.refusal = e.getMessage();
    } catch (RuntimeException e) {
      out.truncate(start);
      row.refusal = "escaped the encoder: " + e;
      mismatches.add("row " + row.id + " " + row.json + ": " + e + "\n" + stackTop(e));
    }
  }

  private static String stackTop(Throwable e) {
    StringBuilder trace = new StringBuilder();
    StackTraceElement[] stack = e.getStackTrace();
    for (int i = 0; i < Math.min(6, stack.length); i++) {
      trace.append("    at ").append(stack[i]).append('\n');
    }
    return trace.toString();
  }

  /** Checks what the encoder did against the rules; a row to be stored joins the twin's rows. */
  private void judgeEncoding(String table, List<Column> columns, Row row, List<Row> twinRows) {
    int firstRefused = -1;
    for (int i = 0; i < columns.size() && firstRefused < 0; i++) {
      if (row.expectations.get(i) instanceof Refuse) {
        firstRefused = i;
      }
    }
    if (firstRefused < 0) {
      if (row.storedByUs()) {
        twinRows.add(row);
        count("row stored");
      } else if (!row.refusal.startsWith("escaped")) {
        int refused = indexOf(columns, row.refusedColumn);
        mismatch(
            table, columns, row, refused, "we refused a value the rules store: " + row.refusal);
      }
      return;
    }
    Column expected = columns.get(firstRefused);
    String rule = ((Refuse) row.expectations.get(firstRefused)).rule();
    if (row.storedByUs()) {
      mismatch(table, columns, row, firstRefused, "we stored a value the rules refuse: " + rule);
    } else if (!expected.name().equals(row.refusedColumn)) {
      mismatch(
          table,
          columns,
          row,
          firstRefused,
          "the rules refuse column "
              + expected.name()
              + " ("
              + rule
              + ") first, we: "
              + row.refusal);
    } else if (!row.refusal.startsWith("column '" + expected.name() + "' (")) {
      mismatch(
          table,
          columns,
          row,
          firstRefused,
          "the refusal does not name the column: " + row.refusal);
    } else {
      count("row refused");
      checkedValues++;
    }
  }

  private static int indexOf(List<Column> columns, String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** The one call of the inserter: our encoded rows, as the service sends them. */
  private String insertEncoded(TableName table, RowEncoder encoder, RowBinaryOutput rows) {
    return TwinTable.refusal(
        () ->
            inserter.insert(
                table,
                new InsertColumns(
                    encoder.columnNames(), encoder.columnTypes(), encoder.readsJsonAsString()),
                rows,
                null));
  }

  /** Our rows in one INSERT; when ClickHouse refuses it, halves until the guilty rows are found. */
  private void insertOurs(
      TableName table, RowEncoder encoder, RowBinaryOutput all, List<Row> stored, String name) {
    List<List<Row>> pending = new ArrayList<>(List.of(stored));
    byte[] allBytes = all.toByteArray();
    while (!pending.isEmpty()) {
      List<Row> batch = pending.remove(pending.size() - 1);
      if (batch.isEmpty()) {
        continue;
      }
      RowBinaryOutput out = new RowBinaryOutput();
      for (Row row : batch) {
        out.writeBytes(allBytes, row.start, row.end - row.start);
      }
      String failure = insertEncoded(table, encoder, out);
      if (failure == null) {
        continue;
      }
      if (batch.size() == 1) {
        Row row = batch.get(0);
        row.start = -1;
        mismatches.add(
            "table "
                + name
                + " row "
                + row.id
                + " "
                + row.json
                + ": ClickHouse refused our encoding: "
                + firstLine(failure));
      } else {
        pending.add(batch.subList(0, batch.size() / 2));
        pending.add(batch.subList(batch.size() / 2, batch.size()));
      }
    }
  }

  /** The canonical rows into the twin; a row ClickHouse refuses there is a mismatch. */
  private void insertTwin(String twin, List<Column> columns, List<Row> rows) {
    List<List<Row>> pending = new ArrayList<>(List.of(rows));
    while (!pending.isEmpty()) {
      List<Row> batch = pending.remove(pending.size() - 1);
      if (batch.isEmpty()) {
        continue;
      }
      StringBuilder lines = new StringBuilder();
      for (Row row : batch) {
        lines.append(TwinTable.canonicalRow(row.id, columns, row.expectations)).append('\n');
      }
      String failure = TwinTable.insert(database, twin, lines.toString());
      if (failure == null) {
        continue;
      }
      if (batch.size() == 1) {
        Row row = batch.get(0);
        mismatch(
            twin,
            columns,
            row,
            -1,
            "ClickHouse refuses the canonical row "
                + TwinTable.canonicalRow(row.id, columns, row.expectations)
                + ": "
                + firstLine(failure));
        row.start = -2; // compared no further
      } else {
        pending.add(batch.subList(0, batch.size() / 2));
        pending.add(batch.subList(batch.size() / 2, batch.size()));
      }
    }
  }

  private void compareStored(String table, List<Column> columns, List<Row> rows) {
    Map<Integer, String[]> ours = TwinTable.read(database, table, columns);
    Map<Integer, String[]> twin = TwinTable.read(database, table + "_twin", columns);
    for (Row row : rows) {
      if (row.start < 0) {
        continue;
      }
      String[] our = ours.get(row.id);
      String[] their = twin.get(row.id);
      if (our == null || their == null) {
        mismatch(
            table,
            columns,
            row,
            -1,
            "row missing: ours " + (our != null) + ", twin " + (their != null));
        continue;
      }
      for (int i = 0; i < columns.size(); i++) {
        if (our[i].equals(their[i])) {
          checkedValues++;
        } else {
          mismatch(
              table,
              columns,
              row,
              i,
              "stored "
                  + TwinTable.shown(our[i])
                  + ", ClickHouse stores "
                  + TwinTable.shown(their[i])
                  + " for the canonical form");
        }
      }
    }
  }

  private void mismatch(String table, List<Column> columns, Row row, int column, String what) {
    StringBuilder report = new StringBuilder();
    report.append("table ").append(table).append(" row ").append(row.id);
    report.append(' ').append(schemas.get(table));
    if (column >= 0) {
      Column c = columns.get(column);
      JsonNode value = row.parsed.get(c.name());
      report.append(" column ").append(c.name()).append(' ').append(c.type().sql());
      report.append("\n  value: ").append(value == null ? "(missing)" : JsonText.write(value));
      Expectation expectation = row.expectations.get(column);
      report
          .append("\n  rules: ")
          .append(
              expectation instanceof Store store
                  ? "store as " + JsonText.write(store.canonical())
                  : "refuse: " + ((Refuse) expectation).rule());
    }
    report.append("\n  ").append(what);
    report.append("\n  row: ");
    report.append(row.json.length() > 600 ? row.json.substring(0, 600) + "..." : row.json);
    mismatches.add(report.toString());
  }

  private void count(String outcome) {
    outcomes.merge(outcome, 1, Integer::sum);
  }

  private static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** The summary line, and every mismatch of a failed run in a file of its own. */
  private void record(String summary, long seed) throws Exception {
    Path results = Path.of(System.getProperty("reliability.results", "target/reliability-results"));
    Files.createDirectories(results);
    Files.writeString(
        results.resolve("values-fuzz.tsv"),
        java.time.Instant.now() + "\t" + summary + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    if (!mismatches.isEmpty()) {
      Files.writeString(
          results.resolve("values-fuzz-mismatches-" + seed + ".txt"),
          String.join("\n\n", mismatches) + "\n");
    }
  }
}
