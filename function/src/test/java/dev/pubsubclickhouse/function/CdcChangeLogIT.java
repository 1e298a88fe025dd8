package dev.pubsubclickhouse.function;

import static dev.pubsubclickhouse.function.DebeziumEvents.*;
import static dev.pubsubclickhouse.function.IntegrationFixtures.concurrently;
import static dev.pubsubclickhouse.function.IntegrationFixtures.createDeadLetterTable;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A generated change log of two source tables, written through the real service into the real
 * ClickHouse out of order and with redeliveries: Postgres' {@code public.orders} with the schema
 * wrapper (Decimal, MicroTimestamp, Date decoded by their schema) into a history table whose
 * materialized view fills the latest state (sql/cdc/history_and_latest_state.sql, as shipped), and
 * MySQL's {@code inventory.customers} without it straight into a latest-state table. The latest
 * state (FINAL) must equal the source's final state value by value, and the history the log change
 * by change.
 */
@ClickHouseTest
class CdcChangeLogIT {
  private static final String ORDER_FIELDS =
      "[{\"type\":\"int32\",\"optional\":false,\"field\":\"id\"},"
          + "{\"type\":\"string\",\"optional\":false,\"field\":\"customer\"},"
          + "{\"type\":\"bytes\",\"optional\":false,\"name\":\"org.apache.kafka.connect.data.Decimal\","
          + "\"version\":1,\"parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"12\"},"
          + "\"field\":\"amount\"},"
          + "{\"type\":\"int64\",\"optional\":false,\"name\":\"io.debezium.time.MicroTimestamp\","
          + "\"version\":1,\"field\":\"placed\"},"
          + "{\"type\":\"int32\",\"optional\":false,\"name\":\"io.debezium.time.Date\",\"version\":1,"
          + "\"field\":\"day\"},"
          + "{\"type\":\"string\",\"optional\":true,\"field\":\"note\"}]";

  private static final String META =
      "__op LowCardinality(String), __version UInt64, __is_deleted UInt8,"
          + " __source_ts_ms DateTime64(3, 'UTC'), __source_table String,"
          + " __transaction_id String, __ingested_at DateTime64(3, 'UTC')";

  private final TestDatabase database;
  private final Random random = new Random(20261204);

  CdcChangeLogIT(TestDatabase database) {
    this.database = database;
  }

  record Order(int id, String customer, long amountCents, long placedMicros, int day, String note) {
    ObjectNode row() {
      return DebeziumEvents.row(
          "id", id,
          "customer", customer,
          "amount",
              Base64.getEncoder().encodeToString(BigInteger.valueOf(amountCents).toByteArray()),
          "placed", placedMicros,
          "day", day,
          "note", note);
    }

    String values() {
      return customer
          + "\t"
          + amountCents
          + "\t"
          + placedMicros
          + "\t"
          + LocalDate.ofEpochDay(day)
          + "\t"
          + (note == null ? "\\N" : note);
    }
  }

  record Customer(int id, String name, int score, String email) {
    ObjectNode row() {
      return DebeziumEvents.row("id", id, "name", name, "score", score, "email", email);
    }

    String line() {
      return id + "\t" + name + "\t" + score + "\t" + email;
    }
  }

  /** One message of the log: its id (redeliveries repeat it) and data. */
  record Message(String id, byte[] data) {}

  @Test
  void outOfOrderRedeliveredLogOfTwoTablesEndsInTheSourcesFinalState() throws Exception {
    // The layout docs/cdc.md recommends, as shipped.
    for (String statement :
        Files.readString(Path.of("../sql/cdc/history_and_latest_state.sql")).split(";")) {
      String sql =
          statement.lines().filter(l -> !l.startsWith("--")).collect(Collectors.joining("\n"));
      if (!sql.isBlank()) {
        database.execute(sql);
      }
    }
    database.execute(
        "CREATE TABLE customers (id Int32, name String, score Int32, email String, "
            + META
            + ") ENGINE = ReplacingMergeTree(__version, __is_deleted) ORDER BY id");
    createDeadLetterTable(database, "cdc_dead");

    List<Message> log = new ArrayList<>();
    Map<Integer, Order> orders = new TreeMap<>();
    List<String> orderHistory = new ArrayList<>();
    generateOrders(log, orders, orderHistory);
    Map<Integer, Customer> customers = new TreeMap<>();
    generateCustomers(log, customers);

    List<Message> deliveries = new ArrayList<>(log);
    for (int i = 0; i < log.size() / 5; i++) {
      deliveries.add(log.get(random.nextInt(log.size())));
    }
    Collections.shuffle(deliveries, random);
    List<Integer> statuses = new ArrayList<>();
    try (RunningService service =
        RunningService.start(
            database,
            "orders_history",
            Map.of(
                "PAYLOAD_FORMAT", "debezium",
                "CDC_TABLES", "public.orders=orders_history,inventory.customers=customers",
                "CLICKHOUSE_DEAD_LETTER_TABLE", "cdc_dead",
                "BATCH_MAX_WAIT_MS", "200"))) {
      for (int start = 0; start < deliveries.size(); start += 40) {
        List<Callable<Integer>> wave = new ArrayList<>();
        for (Message message : deliveries.subList(start, Math.min(deliveries.size(), start + 40))) {
          wave.add(
              () ->
                  service
                      .post(
                          pushBody(message.id(), message.data(), Map.of()),
                          Map.of("Content-Type", "application/json"))
                      .statusCode());
        }
        statuses.addAll(concurrently(wave));
      }
    }
    assertThat(statuses).containsOnly(204);
    assertThat(database.query("SELECT error_message FROM cdc_dead LIMIT 3")).isEmpty();
    String orderColumns =
        "customer, toInt64(amount * 100), toUnixTimestamp64Micro(placed), toString(day), note";
    assertThat(
            rows(
                "SELECT id, "
                    + orderColumns
                    + " FROM orders_latest FINAL WHERE __is_deleted = 0 ORDER BY id"))
        .as("the latest state of public.orders")
        .isEqualTo(
            orders.values().stream()
                .map(o -> o.id() + "\t" + o.values() + "\n")
                .collect(Collectors.joining()));
    assertThat(
            rows(
                "SELECT id, __version, __op, __is_deleted, "
                    + orderColumns
                    + " FROM orders_history FINAL ORDER BY id, __version"))
        .as("the history of public.orders, change by change")
        .isEqualTo(
            orderHistory.stream()
                .sorted(CdcChangeLogIT::byIdThenVersion)
                .collect(Collectors.joining()));
    assertThat(
            rows(
                "SELECT id, name, score, email FROM customers FINAL WHERE __is_deleted = 0"
                    + " ORDER BY id"))
        .as("the latest state of inventory.customers")
        .isEqualTo(
            customers.values().stream().map(c -> c.line() + "\n").collect(Collectors.joining()));
  }

  private static int byIdThenVersion(String a, String b) {
    String[] x = a.split("\t", 3);
    String[] y = b.split("\t", 3);
    int byId = Integer.compare(Integer.parseInt(x[0]), Integer.parseInt(y[0]));
    return byId != 0 ? byId : Long.compare(Long.parseLong(x[1]), Long.parseLong(y[1]));
  }

  /**
   * Postgres: a snapshot, then transactions of inserts, updates (no before: REPLICA IDENTITY
   * DEFAULT), deletes (before holds the key only), re-inserts and primary-key changes (a delete of
   * the old key and a create of the new one at one LSN).
   */
  private void generateOrders(List<Message> log, Map<Integer, Order> state, List<String> history) {
    long lsn = 10_000;
    long txId = 500;
    for (int id = 1; id <= 10; id++) {
      Order order = randomOrder(id);
      ObjectNode source = postgresSource("public", "orders", lsn, txId, 1_700_000_000_000L);
      source.put("snapshot", id == 1 ? "first" : id == 10 ? "last" : "true");
      add(log, "o", payload("r", null, order.row(), source));
      state.put(id, order);
      history.add(id + "\t" + lsn + "\tr\t0\t" + order.values() + "\n");
    }
    for (int change = 0; change < 300; change++) {
      lsn += 1 + random.nextInt(400);
      if (change % 3 == 0) {
        txId++;
      }
      int id = 1 + random.nextInt(30);
      long tsMs = 1_700_000_000_000L + change * 1000L;
      ObjectNode source = postgresSource("public", "orders", lsn, txId, tsMs);
      Order current = state.get(id);
      if (current == null) {
        Order order = randomOrder(id);
        add(log, "o", payload("c", null, order.row(), source));
        state.put(id, order);
        history.add(id + "\t" + lsn + "\tc\t0\t" + order.values() + "\n");
        continue;
      }
      int pick = random.nextInt(100);
      if (pick < 60) {
        Order order = randomOrder(id);
        add(log, "o", payload("u", null, order.row(), source));
        state.put(id, order);
        history.add(id + "\t" + lsn + "\tu\t0\t" + order.values() + "\n");
      } else if (pick < 85 || state.size() > 25) {
        add(log, "o", payload("d", row("id", id), null, source));
        state.remove(id);
        history.add(id + "\t" + lsn + "\td\t1\t" + deletedOrderValues() + "\n");
      } else {
        int newId = 31 + random.nextInt(1000);
        while (state.containsKey(newId)) {
          newId++;
        }
        Order moved =
            new Order(
                newId,
                current.customer(),
                current.amountCents(),
                current.placedMicros(),
                current.day(),
                current.note());
        add(log, "o", payload("d", row("id", id), null, source));
        add(log, "o", payload("c", null, moved.row(), source.deepCopy()));
        state.remove(id);
        state.put(newId, moved);
        history.add(id + "\t" + lsn + "\td\t1\t" + deletedOrderValues() + "\n");
        history.add(newId + "\t" + lsn + "\tc\t0\t" + moved.values() + "\n");
      }
    }
  }

  private static String deletedOrderValues() {
    return "\t0\t0\t1970-01-01\t\\N";
  }

  private Order randomOrder(int id) {
    long cents = random.nextLong() % 100_000_000_000L; // within Decimal(12, 2)
    long micros =
        (long) (random.nextDouble() * 4_000_000_000L) * 1_000_000L + random.nextInt(1_000_000);
    int day = random.nextInt(60_000) - 20_000;
    String note = random.nextInt(4) == 0 ? null : "note " + random.nextInt(1000) + " ünï";
    return new Order(id, "customer-" + random.nextInt(50), cents, micros, day, note);
  }

  /**
   * MySQL (no schema wrapper): a snapshot, then rows events of one to three rows (row 0..2 at one
   * pos), binlog rollovers, and statement times that go back as often as forward.
   */
  private void generateCustomers(List<Message> log, Map<Integer, Customer> state) {
    int file = 7;
    long pos = 4;
    for (int id = 1; id <= 10; id++) {
      Customer customer = randomCustomer(id);
      ObjectNode source =
          mysqlSource("inventory", "customers", file, pos, 0, 1_600_000_000_000L, null);
      source.put("snapshot", id == 10 ? "last" : "true");
      add(log, "c", payload("r", null, customer.row(), source));
      state.put(id, customer);
    }
    for (int event = 0; event < 200; event++) {
      if (random.nextInt(40) == 0) {
        file++;
        pos = 4;
      }
      pos += 50 + random.nextInt(3000);
      long tsMs = 1_600_000_000_000L + random.nextInt(1_000_000);
      String gtid = "3E11FA47-71CA-11E1-9E33-C80AA9429562:" + event;
      int rows = 1 + random.nextInt(3);
      List<Integer> touched = new ArrayList<>();
      for (int row = 0; row < rows; row++) {
        int id = 1 + random.nextInt(25);
        if (touched.contains(id)) {
          continue;
        }
        touched.add(id);
        ObjectNode source = mysqlSource("inventory", "customers", file, pos, row, tsMs, gtid);
        Customer current = state.get(id);
        if (current == null) {
          Customer customer = randomCustomer(id);
          add(log, "c", payload("c", null, customer.row(), source));
          state.put(id, customer);
        } else if (random.nextInt(4) == 0) {
          add(log, "c", payload("d", current.row(), null, source));
          state.remove(id);
        } else {
          Customer customer = randomCustomer(id);
          add(log, "c", payload("u", current.row(), customer.row(), source));
          state.put(id, customer);
        }
      }
    }
  }

  private Customer randomCustomer(int id) {
    return new Customer(
        id,
        "name-" + random.nextInt(1000),
        random.nextInt(),
        "c" + random.nextInt(100) + "@example.org");
  }

  private void add(List<Message> log, String prefix, ObjectNode payload) {
    ObjectNode data =
        prefix.equals("o") ? wrapped(payload, ORDER_FIELDS, "pg.public.orders") : payload;
    log.add(
        new Message(prefix + "-" + log.size(), data.toString().getBytes(StandardCharsets.UTF_8)));
  }

  /** The rows of a query as TabSeparated lines, each ending in a newline. */
  private String rows(String sql) {
    String rows = database.query(sql);
    return rows.isEmpty() ? rows : rows + "\n";
  }
}
