package dev.pubsubclickhouse.testing.values;

import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.client.api.query.QuerySettings;
import com.clickhouse.data.ClickHouseFormat;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.values.Expectation.Store;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * ClickHouse's own reading of values: a table with the same schema as the one under test, written
 * by {@code INSERT ... FORMAT JSONEachRow} with the canonical forms of the values, and the reading
 * back of both tables for comparison. Every table has an {@code id UInt32} column first.
 */
public final class TwinTable {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  /** A column of a fuzzed table. */
  public record Column(String name, FuzzType type) {}

  private TwinTable() {}

  /** The column list of the table: {@code (id UInt32, c0 T0, ...)}. */
  public static String columnsSql(List<Column> columns) {
    StringBuilder sql = new StringBuilder("(id UInt32");
    for (Column column : columns) {
      sql.append(", ").append(column.name()).append(' ').append(column.type().sql());
    }
    return sql.append(')').toString();
  }

  /** LowCardinality of a number is "suspicious" to ClickHouse, but a type users may have. */
  public static void create(TestDatabase database, String table, String definition) {
    query(database, "CREATE TABLE " + table + " " + definition);
  }

  /** The row as the rules store it: every value in its canonical form. */
  public static String canonicalRow(int id, List<Column> columns, List<Expectation> expected) {
    ObjectNode canonical = NODES.objectNode().put("id", id);
    for (int i = 0; i < columns.size(); i++) {
      canonical.set(columns.get(i).name(), ((Store) expected.get(i)).canonical());
    }
    return JsonText.write(canonical);
  }

  /**
   * Inserts JSONEachRow lines as ClickHouse reads them. Date-time text is read with best-effort
   * parsing (it reads every form the rules store) and, in a column without time zone, in UTC, as
   * ours is. Returns null, or ClickHouse's message when it refuses the INSERT.
   */
  public static String insert(TestDatabase database, String table, String lines) {
    InsertSettings settings =
        new InsertSettings()
            .serverSetting("date_time_input_format", "best_effort")
            .serverSetting("session_timezone", "UTC")
            .serverSetting("async_insert", "0");
    return refusal(
        () ->
            database
                .client()
                .insert(
                    table,
                    new ByteArrayInputStream(lines.getBytes(StandardCharsets.UTF_8)),
                    ClickHouseFormat.JSONEachRow,
                    settings)
                .get(60, TimeUnit.SECONDS)
                .close());
  }

  /** An INSERT that ClickHouse may refuse. */
  @FunctionalInterface
  public interface Insert {
    void run() throws Exception;
  }

  /**
   * Runs {@code insert}: null when ClickHouse takes it, else the message it is refused with (the
   * cause's, where a client wraps ClickHouse's error in an exception of its own).
   */
  public static String refusal(Insert insert) {
    try {
      insert.run();
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (Exception e) {
      return String.valueOf(e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
    }
  }

  /**
   * Every column of every row of {@code table} as the hex of its text, by id. Date-times are shown
   * in UTC (cast to the same type in UTC, an exact change of how the instant is shown), so that
   * what is compared is the instant stored, not ClickHouse's display of it near a clock change.
   */
  public static Map<Integer, String[]> read(
      TestDatabase database, String table, List<Column> columns) {
    StringBuilder select = new StringBuilder("SELECT id");
    for (Column column : columns) {
      select
          .append(", hex(toString(CAST(")
          .append(column.name())
          .append(", ")
          .append(quote(inUtc(column.type().sql())))
          .append(")))");
    }
    select.append(" FROM ").append(table);
    Map<Integer, String[]> rows = new HashMap<>();
    for (String line : query(database, select.toString()).split("\n")) {
      if (!line.isEmpty()) {
        String[] fields = line.split("\t", -1);
        rows.put(Integer.parseInt(fields[0]), Arrays.copyOfRange(fields, 1, fields.length));
      }
    }
    return rows;
  }

  /** A value as {@link #read} gives it, for a report: its text and the start of its hex. */
  public static String shown(String hex) {
    if (hex.equals("\\N")) {
      return "NULL";
    }
    return "'"
        + new String(HexFormat.of().parseHex(hex), StandardCharsets.UTF_8)
        + "' (hex "
        + (hex.length() > 80 ? hex.substring(0, 80) + "..." : hex)
        + ")";
  }

  /** The type with every date-time in UTC. */
  static String inUtc(String type) {
    return type.replaceAll("DateTime64\\((\\d)(, '[^']*')?\\)", "DateTime64($1, 'UTC')")
        .replaceAll("DateTime(\\('[^']*'\\))?(?![6(])", "DateTime('UTC')");
  }

  private static String quote(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /** TabSeparated result of a statement that may name LowCardinality types of numbers. */
  private static String query(TestDatabase database, String sql) {
    QuerySettings settings =
        new QuerySettings()
            .setFormat(ClickHouseFormat.TabSeparated)
            .serverSetting("allow_suspicious_low_cardinality_types", "1");
    try (QueryResponse response =
        database.client().query(sql, settings).get(60, TimeUnit.SECONDS)) {
      return new String(response.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (Exception e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }
}
