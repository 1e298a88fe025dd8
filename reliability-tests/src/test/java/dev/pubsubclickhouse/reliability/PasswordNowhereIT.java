package dev.pubsubclickhouse.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.FaultInjectingProxy.Fault;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The ClickHouse password appears nowhere: not in the service's log (through start, good and bad
 * messages, every kind of ClickHouse failure, SIGTERM, an unready start with a wrong password (and
 * its /healthz answer), a refused start with a URL carrying credentials), not in /metrics, the
 * dead-letter table, the push driver's output and dead-letter file, nor ClickHouse's own query log.
 * MainIT.thePasswordAppearsNowhere covers the quiet path; this one covers the failure paths, where
 * a password most often leaks.
 */
@ClickHouseTest
class PasswordNowhereIT {
  private static final String PASSWORD = LocalClickHouse.PIPELINE_PASSWORD;
  private final TestDatabase database;

  PasswordNowhereIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void thePasswordAppearsInNoLogMetricTableOrOutputThroughFailures() throws Exception {
    Assumptions.assumeTrue(
        database.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    Sql sql = Sql.of(database);
    sql.query("CREATE TABLE secret_target " + Ledger.TARGET);
    sql.query("CREATE TABLE secret_errors " + Ledger.ERRORS);
    Path work = Results.runDirectory("password");
    List<String> outputs = new ArrayList<>();
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      Map<String, String> env =
          new ClickHouseServer(proxy.url(), LocalClickHouse.PIPELINE_USER, PASSWORD)
              .environment(database.name());
      env.put("CLICKHOUSE_TABLE", "secret_target");
      env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "secret_errors");
      env.put("MAX_RETRIES", "1");
      env.put("INSERT_TIMEOUT_MS", "1000");
      env.put("SUMMARY_INTERVAL_SECONDS", "1");
      ServiceProcess service =
          new ServiceProcess(
                  env, List.of("-Xmx256m"), work.resolve("service.log"), LocalClickHouse.freePort())
              .start();
      try {
        Ledger ledger = new Ledger(200);
        DriverRun driver =
            DriverRun.start(
                service.url(),
                ledger.write(work.resolve("input.ndjson")),
                work,
                List.of("--concurrency=8", "--max-attempts=3", "--max-backoff-ms=200"));
        for (Fault fault : Fault.values()) {
          proxy.failEverything(fault);
          Thread.sleep(fault == Fault.NO_ANSWER ? 2_500 : 1_200);
          outputs.add(service.get("/healthz").body());
          proxy.heal();
          Thread.sleep(300);
        }
        driver.await(300);
        outputs.add(service.get("/metrics").body());
        Thread.sleep(1_200); // a summary line
        service.terminate();
        // A wrong password: the service serves unready, /healthz naming the refusal.
        ServiceProcess refused =
            service.with(
                Map.of(
                    "CLICKHOUSE_URL",
                    database.server().url(),
                    "CLICKHOUSE_PASSWORD",
                    "x" + PASSWORD));
        outputs.add(refused.startExpectingUnready());
        refused.terminate();
        // A refused start: credentials in the URL.
        assertThat(
                service
                    .with(
                        Map.of(
                            "CLICKHOUSE_URL",
                            "http://pipeline:"
                                + PASSWORD
                                + "@127.0.0.1:"
                                + proxy.url().replaceAll(".*:", "")))
                    .startExpectingExit())
            .isEqualTo(2);
        outputs.add(service.output());
        outputs.add(Files.readString(work.resolve("driver.log"), StandardCharsets.UTF_8));
        if (Files.exists(driver.deadLetterFile)) {
          outputs.add(Files.readString(driver.deadLetterFile, StandardCharsets.UTF_8));
        }
      } finally {
        if (service.alive()) {
          service.kill();
        }
      }
    }
    outputs.add(sql.query("SELECT * FROM secret_errors FORMAT TSV"));
    database.flushLogs();
    outputs.add(
        sql.query(
            "SELECT query, exception FROM system.query_log WHERE current_database = '"
                + database.name()
                + "' FORMAT TSV"));
    assertThat(String.join("\n", outputs))
        .contains("Authentication failed")
        .doesNotContain(PASSWORD);
    assertThat(String.join("\n", outputs))
        .as("the failures happened")
        .contains("messages not written")
        .contains("must not hold credentials");
    assertThat(sql.number("SELECT count() FROM secret_errors")).isPositive();
  }
}
