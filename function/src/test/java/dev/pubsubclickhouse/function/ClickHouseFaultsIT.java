package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.FaultInjectingProxy.Fault;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ClickHouse failing in the ways it does in production. A message is never acknowledged unless its
 * rows are in the table; while ClickHouse fails, requests get 503 and Pub/Sub keeps the messages.
 */
@ClickHouseTest
class ClickHouseFaultsIT {
  private static final String EVENT =
      "{\"event_time\":\"2026-01-15 12:00:00\",\"service\":\"api\",\"level\":\"INFO\",\"message\":\"%s\"}";

  private final TestDatabase database;

  ClickHouseFaultsIT(TestDatabase database) {
    this.database = database;
  }

  private static Map<String, String> throughProxy(
      FaultInjectingProxy proxy, Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>(extra);
    settings.put("CLICKHOUSE_URL", proxy.url());
    settings.put("MAX_RETRIES", "2");
    settings.put("INSERT_TIMEOUT_MS", "1000");
    return settings;
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Fault.class,
      names = {"HTTP_503", "MEMORY_LIMIT_241", "TOO_MANY_PARTS_252", "NO_ANSWER"})
  void whileInsertsFailRequestsGet503AndAreWrittenOnceTheyPass(Fault fault) throws Exception {
    String table = "faults_" + fault.name().toLowerCase();
    database.execute(
        "CREATE TABLE " + table + " (message String) ENGINE = MergeTree ORDER BY message");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url());
        RunningService service =
            RunningService.start(database, table, throughProxy(proxy, Map.of()))) {
      assertThat(service.push("before", EVENT.formatted("before"))).isEqualTo(204);
      proxy.failInserts(fault);
      assertThat(service.push("during", EVENT.formatted("during"))).isEqualTo(503);
      assertThat(proxy.faultedRequests())
          .as("first attempt and MAX_RETRIES=2")
          .isGreaterThanOrEqualTo(3);
      proxy.heal();
      assertThat(service.push("during", EVENT.formatted("during"))).isEqualTo(204);
    }
    assertThat(database.query("SELECT message FROM " + table + " ORDER BY message"))
        .isEqualTo("before\nduring");
  }

  @Test
  void aStoppedClickHouseGets503AndTheRestartedOneTheRows(
      @org.junit.jupiter.api.io.TempDir Path directory) throws Exception {
    LocalClickHouse server = LocalClickHouse.start(directory.resolve("clickhouse"));
    try {
      Map<String, String> env = new HashMap<>();
      env.put("CLICKHOUSE_URL", server.url());
      env.put("CLICKHOUSE_DATABASE", "default");
      env.put("CLICKHOUSE_TABLE", "restarted");
      env.put("MAX_RETRIES", "1");
      env.put("INSERT_TIMEOUT_MS", "2000");
      try (var client = clientOf(server)) {
        client
            .execute("CREATE TABLE restarted (message String) ENGINE = MergeTree ORDER BY message")
            .get()
            .close();
      }
      try (RunningService service = RunningService.start(env)) {
        assertThat(service.push("1", EVENT.formatted("one"))).isEqualTo(204);
        server.kill();
        assertThat(service.push("2", EVENT.formatted("two"))).isEqualTo(503);
        assertThat(service.get("/healthz").statusCode()).isEqualTo(503);
        server.start();
        assertThat(service.push("2", EVENT.formatted("two"))).isEqualTo(204);
      }
      try (var client = clientOf(server)) {
        assertThat(
                client.queryAll("SELECT message FROM restarted ORDER BY message").stream()
                    .map(r -> r.getString("message"))
                    .toList())
            .containsExactly("one", "two");
      }
    } finally {
      server.stop();
    }
  }

  /** A client of the server's default user, which has no password. */
  private static com.clickhouse.client.api.Client clientOf(LocalClickHouse server) {
    return new com.clickhouse.client.api.Client.Builder()
        .addEndpoint(server.url())
        .setUsername("default")
        .setPassword("")
        .build();
  }

  @Test
  void beyondTheWaitingBoundRequestsGet429AtOnce() throws Exception {
    database.execute("CREATE TABLE overload (message String) ENGINE = MergeTree ORDER BY message");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url());
        RunningService service =
            RunningService.start(
                database,
                "overload",
                throughProxy(
                    proxy,
                    Map.of(
                        "MAX_PENDING_MESSAGES",
                        "4",
                        "MAX_RETRIES",
                        "0",
                        "INSERT_TIMEOUT_MS",
                        "3000")))) {
      proxy.failInserts(Fault.NO_ANSWER);
      ExecutorService pool = Executors.newFixedThreadPool(12);
      try {
        List<Future<Integer>> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          int n = i;
          answers.add(pool.submit(() -> service.push("slow-" + n, EVENT.formatted("slow " + n))));
        }
        while (service.service.metrics().snapshot().get("waiting-requests") < 4) {
          Thread.sleep(5);
        }
        long start = System.nanoTime();
        for (int i = 0; i < 8; i++) {
          assertThat(service.push("extra-" + i, EVENT.formatted("extra"))).isEqualTo(429);
        }
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(1000);
        for (Future<Integer> answer : answers) {
          assertThat(answer.get()).isEqualTo(503);
        }
      } finally {
        pool.shutdownNow();
      }
    }
    assertThat(database.count("overload")).isZero();
  }
}
