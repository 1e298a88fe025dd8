package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.values.Expectation;
import dev.pubsubclickhouse.testing.values.Expectation.Refuse;
import dev.pubsubclickhouse.testing.values.JsonText;
import dev.pubsubclickhouse.testing.values.TwinTable;
import dev.pubsubclickhouse.testing.values.TwinTable.Column;
import dev.pubsubclickhouse.testing.values.ValueFuzz;
import dev.pubsubclickhouse.testing.values.ValueGenerator;
import dev.pubsubclickhouse.testing.values.ValueRules;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The differential fuzz of values (core's ValueDifferentialIT) through the push service: random
 * tables and single-row messages pushed 16 at a time to the real service with a dead-letter table.
 * Every message must be answered 204; a message the rules store must be in the target table with
 * the values ClickHouse's own JSON parsing stores for the canonical forms (the twin table), and
 * nowhere else; a message the rules refuse must be in the dead-letter table, once, with a reason
 * that names the first column the rules refuse, and not in the target table.
 *
 * <p>{@code -Dpush.values.fuzz.seed=N} replays a run; {@code -Dpush.values.fuzz.values=N} sets how
 * many values it checks (10,000 by default).
 */
@ClickHouseTest
class PushValueDifferentialIT {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final int MESSAGES_PER_TABLE = 200;
  private static final int IN_FLIGHT = 16;
  private static final String DEAD_LETTERS =
      "(raw_message String, error_message String, stack_trace String, failed_at DateTime)"
          + " ENGINE = MergeTree ORDER BY failed_at";

  private final TestDatabase database;
  private final List<String> mismatches = new ArrayList<>();
  private long checkedValues;

  PushValueDifferentialIT(TestDatabase database) {
    this.database = database;
  }

  private record Message(int id, String data, List<Expectation> expectations) {
    int firstRefused() {
      for (int i = 0; i < expectations.size(); i++) {
        if (expectations.get(i) instanceof Refuse) {
          return i;
        }
      }
      return -1;
    }
  }

  @Test
  void everyMessageIsStoredAsClickHouseReadsItOrDeadLetteredNamingTheColumn() throws Exception {
    long seed = Long.getLong("push.values.fuzz.seed", 20_251_202L);
    long target = Long.getLong("push.values.fuzz.values", 10_000L);
    ValueFuzz fuzz = ValueFuzz.seeded(seed);
    long started = System.nanoTime();
    int tables = 0;
    while (checkedValues < target && mismatches.size() < 200) {
      fuzzTable("p" + tables++, fuzz.columns(8), fuzz.values(), fuzz.rules(), fuzz.random());
    }
    System.out.printf(
        Locale.ROOT,
        "RESULT push values fuzz: seed=%d tables=%d values=%d seconds=%.1f%n",
        seed,
        tables,
        checkedValues,
        (System.nanoTime() - started) / 1e9);
    assertThat(mismatches)
        .as(
            "seed %d (-Dpush.values.fuzz.seed=%d): %d mismatches, the first 30:%n%s",
            seed,
            seed,
            mismatches.size(),
            String.join("\n\n", mismatches.subList(0, Math.min(30, mismatches.size()))))
        .isEmpty();
    assertThat(checkedValues).isGreaterThanOrEqualTo(target);
  }

  private void fuzzTable(
      String table, List<Column> columns, ValueGenerator values, ValueRules rules, Random random)
      throws Exception {
    String schema = TwinTable.columnsSql(columns);
    TwinTable.create(database, table, schema + " ENGINE = Memory");
    TwinTable.create(database, table + "_twin", schema + " ENGINE = Memory");
    database.execute("CREATE TABLE " + table + "_dead " + DEAD_LETTERS);
    List<Message> messages = new ArrayList<>();
    for (int id = 0; id < MESSAGES_PER_TABLE; id++) {
      ObjectNode row = NODES.objectNode().put("id", id);
      for (Column column : columns) {
        if (random.nextDouble() >= 0.005) {
          row.set(column.name(), values.value(column.type()));
        }
      }
      String data = JsonText.write(row);
      JsonNode parsed = JsonPayloads.rows(data.getBytes(StandardCharsets.UTF_8)).get(0);
      messages.add(new Message(id, data, rules.expectRow(columns, parsed)));
    }
    Map<Integer, Integer> answers = push(table, messages);

    StringBuilder twinRows = new StringBuilder();
    for (Message message : messages) {
      if (message.firstRefused() < 0) {
        twinRows.append(TwinTable.canonicalRow(message.id(), columns, message.expectations()));
        twinRows.append('\n');
      }
    }
    String twinFailure = TwinTable.insert(database, table + "_twin", twinRows.toString());
    if (twinFailure != null) {
      mismatches.add(table + ": ClickHouse refuses the canonical rows: " + twinFailure);
      return;
    }
    Map<Integer, String[]> stored = TwinTable.read(database, table, columns);
    Map<Integer, String[]> twin = TwinTable.read(database, table + "_twin", columns);
    Map<Integer, List<String>> deadLetters = deadLetters(table);
    for (Message message : messages) {
      check(table, schema, columns, message, answers, stored, twin, deadLetters);
    }
  }

  /** Pushes each message as its own request, IN_FLIGHT at a time; the status of each. */
  private Map<Integer, Integer> push(String table, List<Message> messages) throws Exception {
    Map<Integer, Integer> answers = new HashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(IN_FLIGHT);
    try (RunningService service =
        RunningService.start(
            database,
            table,
            Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", table + "_dead", "BATCH_LINGER_MS", "5"))) {
      List<Future<Integer>> statuses = new ArrayList<>();
      for (Message message : messages) {
        statuses.add(pool.submit(() -> service.push(table + "-" + message.id(), message.data())));
      }
      for (int i = 0; i < messages.size(); i++) {
        answers.put(messages.get(i).id(), statuses.get(i).get());
      }
    } finally {
      pool.shutdownNow();
    }
    return answers;
  }

  /** The dead-letter table's reasons, by message. */
  private Map<Integer, List<String>> deadLetters(String table) {
    Map<Integer, List<String>> reasons = new HashMap<>();
    String rows =
        database.query(
            "SELECT extract(stack_trace, '^messageId="
                + table
                + "-(\\\\d+) '), hex(error_message) FROM "
                + table
                + "_dead");
    for (String line : rows.split("\n")) {
      if (!line.isEmpty()) {
        String[] fields = line.split("\t", -1);
        String reason =
            new String(java.util.HexFormat.of().parseHex(fields[1]), StandardCharsets.UTF_8);
        reasons.computeIfAbsent(Integer.parseInt(fields[0]), k -> new ArrayList<>()).add(reason);
      }
    }
    return reasons;
  }

  private void check(
      String table,
      String schema,
      List<Column> columns,
      Message message,
      Map<Integer, Integer> answers,
      Map<Integer, String[]> stored,
      Map<Integer, String[]> twin,
      Map<Integer, List<String>> deadLetters) {
    String where = table + " " + schema + " message " + message.id() + " " + message.data();
    int status = answers.get(message.id());
    if (status != 204) {
      mismatches.add(where + "\n  answered " + status);
      return;
    }
    String[] ours = stored.get(message.id());
    List<String> reasons = deadLetters.getOrDefault(message.id(), List.of());
    int refused = message.firstRefused();
    if (refused >= 0) {
      String column = columns.get(refused).name();
      String rule = ((Refuse) message.expectations().get(refused)).rule();
      if (ours != null) {
        mismatches.add(where + "\n  stored, but the rules refuse " + column + ": " + rule);
      } else if (reasons.size() != 1 || !reasons.get(0).startsWith("column '" + column + "' (")) {
        mismatches.add(
            where + "\n  the rules refuse " + column + " (" + rule + "); dead letters: " + reasons);
      } else {
        checkedValues++;
      }
      return;
    }
    if (ours == null || !reasons.isEmpty()) {
      mismatches.add(
          where
              + "\n  the rules store it; stored: "
              + (ours != null)
              + ", dead letters: "
              + reasons);
      return;
    }
    String[] theirs = twin.get(message.id());
    for (int i = 0; i < columns.size(); i++) {
      if (ours[i].equals(theirs[i])) {
        checkedValues++;
      } else {
        mismatches.add(
            where
                + "\n  column "
                + columns.get(i).name()
                + " "
                + columns.get(i).type().sql()
                + ": stored "
                + TwinTable.shown(ours[i])
                + ", ClickHouse stores "
                + TwinTable.shown(theirs[i]));
      }
    }
  }
}
