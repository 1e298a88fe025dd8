package dev.pubsubclickhouse.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.driver.PushDriver.Summary;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.FaultInjectingProxy.Fault;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Nothing is lost under faults. The push driver (Pub/Sub's semantics: a nack is retried with
 * backoff, the last attempt dead-letters to a file) sends a fixed set of messages with unique ids
 * through the service jar while a fault is injected mid-run; afterwards every id is in the target
 * table, the dead-letter table or the dead-letter file. Duplicates (at-least-once) are counted, and
 * the exactly-once layout (ReplacingMergeTree keyed on subscription, message id and row index) is
 * shown to leave exactly one row per message under FINAL.
 *
 * <p>Times are scaled down: the driver's request timeout (the ack deadline) is seconds, not
 * Pub/Sub's 10 to 600. {@code -Dreliability.messages} and {@code -Dreliability.rounds} (the soak
 * profile) make the runs long and repeat each fault.
 */
@ClickHouseTest
class FaultAccountingIT {
  private final TestDatabase database;
  @TempDir Path directory;

  FaultAccountingIT(TestDatabase database) {
    this.database = database;
  }

  /** One scenario's moving parts; closing it stops what still runs, even after a failure. */
  private final class Run implements AutoCloseable {
    final String name;
    final Ledger ledger = new Ledger(Results.messages());
    final Sql sql;
    final Path work;
    ServiceProcess service;
    DriverRun driver;
    long started;

    Run(String name, Sql sql) throws Exception {
      this.name = name;
      this.sql = sql;
      this.work = Results.runDirectory(name);
      sql.query("CREATE TABLE " + name + " " + Ledger.TARGET);
      sql.query("CREATE TABLE " + name + "_errors " + Ledger.ERRORS);
    }

    Map<String, String> environment(String clickHouseUrl, String user, String password) {
      Map<String, String> env = new HashMap<>();
      env.put("CLICKHOUSE_URL", clickHouseUrl);
      env.put("CLICKHOUSE_USER", user);
      env.put("CLICKHOUSE_PASSWORD", password);
      env.put("CLICKHOUSE_DATABASE", sql.database());
      env.put("CLICKHOUSE_TABLE", name);
      env.put("CLICKHOUSE_DEAD_LETTER_TABLE", name + "_errors");
      env.put("MAX_RETRIES", "1");
      env.put("INSERT_TIMEOUT_MS", "2000");
      env.put("ANSWER_TIMEOUT_MS", "5000");
      env.put("BATCH_MAX_WAIT_MS", "200");
      env.put("BATCH_LINGER_MS", "5");
      return env;
    }

    void startService(Map<String, String> env) throws Exception {
      service = ServiceProcess.small(env, work.resolve("service.log")).start();
    }

    /**
     * @param driverOptions on top of {@link DriverRun#pubSubLike()}
     */
    void startDriver(String... driverOptions) throws Exception {
      List<String> options = new ArrayList<>(DriverRun.pubSubLike());
      options.addAll(List.of(driverOptions));
      started = System.nanoTime();
      driver =
          DriverRun.start(service.url(), ledger.write(work.resolve("input.ndjson")), work, options);
    }

    /**
     * Waits until this share of the messages has arrived in the target table (or the driver ends).
     */
    void awaitProgress(Sql counter, double share) throws InterruptedException {
      long target = (long) (ledger.size() * 0.9 * share);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
      while (System.nanoTime() < deadline && driver.running()) {
        Long rows = counter.numberOrNull("SELECT count() FROM " + name);
        if (rows != null && rows >= target) {
          return;
        }
        Thread.sleep(20);
      }
    }

    /** The share of the run at which fault {@code round} (1-based) starts. */
    double at(int round) {
      return (double) round / (Results.rounds() + 1);
    }

    @Override
    public void close() throws Exception {
      if (driver != null) {
        driver.stop();
      }
      if (service != null && service.alive()) {
        service.kill();
      }
    }

    /** Waits for the driver, accounts for every message, checks and records the result. */
    Ledger.Account finish(String scenario) throws Exception {
      Summary summary = driver.await(Math.max(300, ledger.size() / 10));
      double seconds = (System.nanoTime() - started) / 1e9;
      Ledger.Account account = ledger.account(sql, name, name + "_errors", driver.deadLetterFile);
      Results.record(
          "faults.tsv",
          String.format(
              Locale.ROOT,
              "%s\trounds=%d\tacked=%d\tretried=%d\t%s\tseconds=%.1f",
              scenario,
              Results.rounds(),
              summary.acked(),
              summary.retried(),
              account,
              seconds));
      assertThat(summary.acked() + summary.deadLettered())
          .as("the driver finished every message")
          .isEqualTo(ledger.size());
      assertThat(account.missing()).as("messages in no table and no dead-letter file").isEmpty();
      assertThat(account.goodNotInTarget())
          .as("good messages not in the target table (a service that answered 503 throughout)")
          .isEmpty();
      assertThat(account.wrongValues()).as("rows whose values differ from the published").isEmpty();
      assertThat(account.badInTarget()).as("refused messages in the target table").isEmpty();
      assertThat(account.goodInErrors()).as("good messages in the dead-letter table").isEmpty();
      assertThat(account.targetMessageIds())
          .as("one _pubsub_message_id per id")
          .isEqualTo(account.targetIds());
      assertThat(account.deduplicatedFinal())
          .as("the exactly-once layout, FINAL: one row per message")
          .isEqualTo(account.targetIds());
      assertThat(account.deadLettered())
          .as("the driver's dead-letter file matches its summary")
          .isEqualTo(summary.deadLettered());
      assertThat(summary.retried())
          .as("the fault was felt: some deliveries were nacked")
          .isPositive();
      return account;
    }
  }

  private Sql sharedSql() {
    return Sql.of(database);
  }

  @Test
  void clickHouseKilledMidRunAndRestarted() throws Exception {
    LocalClickHouse server = LocalClickHouse.start(directory.resolve("clickhouse"));
    try {
      Sql sql = new Sql(server.url(), "default", "", "default");
      try (Run run = new Run("killed_clickhouse", sql)) {
        run.startService(run.environment(server.url(), "default", ""));
        run.startDriver();
        for (int round = 1; round <= Results.rounds(); round++) {
          run.awaitProgress(sql, run.at(round));
          run.service.note("killing ClickHouse (round " + round + ")");
          server.kill();
          Thread.sleep(2_000);
          server.start();
          run.service.note("ClickHouse restarted");
        }
        Ledger.Account account = run.finish("clickhouse-killed-and-restarted");
        assertThat(account.targetIds() + account.deadLettered()).isPositive();
      }
    } finally {
      server.stop();
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Fault.class,
      names = {"HTTP_500", "HTTP_503", "MEMORY_LIMIT_241", "TOO_MANY_PARTS_252", "NO_ANSWER"})
  void clickHouseFailingInsertsForAWhile(Fault fault) throws Exception {
    Sql sql = sharedSql();
    String name = "failing_" + fault.name().toLowerCase(Locale.ROOT);
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url());
        Run run = new Run(name, sql)) {
      Map<String, String> env =
          run.environment(proxy.url(), database.server().user(), database.server().password());
      env.put("ANSWER_TIMEOUT_MS", "3000");
      run.startService(env);
      run.startDriver();
      for (int round = 1; round <= Results.rounds(); round++) {
        run.awaitProgress(sql, run.at(round));
        proxy.failInserts(fault);
        // Longer than the service's own retries (MAX_RETRIES=1), so that requests get 503. A hung
        // INSERT takes INSERT_TIMEOUT_MS (2 s) per attempt.
        Thread.sleep(fault == Fault.NO_ANSWER || fault == Fault.HTTP_503 ? 5_000 : 2_000);
        proxy.heal();
      }
      run.finish("clickhouse-" + fault.name().toLowerCase(Locale.ROOT).replace('_', '-'));
      assertThat(proxy.faultedRequests()).isPositive();
    }
  }

  @Test
  void clickHouseSlowerThanTheAckDeadline() throws Exception {
    Sql sql = sharedSql();
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url());
        Run run = new Run("slow_clickhouse", sql)) {
      Map<String, String> env =
          run.environment(proxy.url(), database.server().user(), database.server().password());
      // The ack deadline is 2 s; an INSERT attempt gives up after 1 s and the request is answered
      // 503 after 1.5 s. ClickHouse takes 3 s and writes the rows anyway: redelivery duplicates.
      env.put("INSERT_TIMEOUT_MS", "1000");
      env.put("ANSWER_TIMEOUT_MS", "1500");
      run.startService(env);
      run.startDriver("--timeout-ms=2000");
      for (int round = 1; round <= Results.rounds(); round++) {
        run.awaitProgress(sql, run.at(round));
        proxy.slowInserts(Duration.ofSeconds(3));
        Thread.sleep(4_000);
        proxy.heal();
      }
      run.finish("clickhouse-slower-than-ack-deadline");
    }
  }

  @Test
  void serviceStoppedWithSigtermMidBatchAndRestarted() throws Exception {
    restartedService("service-sigterm", false);
  }

  @Test
  void serviceKilledWithSigkillMidBatchAndRestarted() throws Exception {
    restartedService("service-sigkill", true);
  }

  private void restartedService(String scenario, boolean kill) throws Exception {
    Sql sql = sharedSql();
    try (Run run = new Run(scenario.replace('-', '_'), sql)) {
      Map<String, String> env =
          run.environment(
              database.server().url(), database.server().user(), database.server().password());
      // Batches that stay open a while, so the signal finds requests waiting in one.
      env.put("BATCH_LINGER_MS", "100");
      env.put("BATCH_MAX_WAIT_MS", "500");
      run.startService(env);
      run.startDriver();
      for (int round = 1; round <= Results.rounds(); round++) {
        run.awaitProgress(sql, run.at(round));
        long waiting = 0;
        for (int i = 0; i < 200 && waiting == 0; i++) {
          waiting = run.service.metric("pubsub_clickhouse_waiting_requests");
          if (waiting == 0) {
            Thread.sleep(5);
          }
        }
        run.service.note((kill ? "SIGKILL" : "SIGTERM") + " with " + waiting + " requests waiting");
        if (kill) {
          run.service.kill();
        } else {
          long start = System.nanoTime();
          run.service.terminate();
          assertThat(Duration.ofNanos(System.nanoTime() - start))
              .as("SIGTERM to exit, within Cloud Run's 10 s")
              .isLessThan(Duration.ofSeconds(10));
          assertThat(run.service.output()).contains("\"message\":\"push service stopped\"");
        }
        Thread.sleep(1_000);
        run.service.start();
      }
      run.finish(scenario);
    }
  }

  @Test
  void deadLetterTableDroppedMidRun() throws Exception {
    Sql sql = sharedSql();
    try (Run run = new Run("dropped_errors", sql)) {
      run.startService(
          run.environment(
              database.server().url(), database.server().user(), database.server().password()));
      // Few attempts, so what the missing table cannot take reaches the dead-letter file quickly.
      run.startDriver("--max-attempts=5", "--max-backoff-ms=500");
      run.awaitProgress(sql, 0.3);
      // To the service a table renamed away is a dropped one (UNKNOWN_TABLE); unlike DROP, RENAME
      // keeps the rows acknowledged before it, so they can still be counted afterwards.
      sql.query("RENAME TABLE dropped_errors_errors TO dropped_errors_errors_gone");
      run.service.note("dead-letter table gone");
      while (run.driver.running()) {
        Thread.sleep(100);
      }
      sql.query("RENAME TABLE dropped_errors_errors_gone TO dropped_errors_errors");
      Ledger.Account account = run.finish("dead-letter-table-dropped");
      assertThat(account.deadLettered()).as("refused messages after the drop").isPositive();
      assertThat(account.errorIds()).as("refused messages before the drop").isPositive();
    }
  }
}
