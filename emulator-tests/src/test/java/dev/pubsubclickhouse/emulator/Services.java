package dev.pubsubclickhouse.emulator;

import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ServiceProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The service jar as the push endpoint of the emulator's subscriptions. */
final class Services {
  private Services() {}

  /**
   * Settings for the service writing {@code database.table} on {@code server}; the caller adds the
   * dead-letter sinks. Answers come well within the subscriptions' ack deadline.
   */
  static Map<String, String> writing(ClickHouseServer server, String database, String table) {
    Map<String, String> env = server.environment(database);
    env.put("CLICKHOUSE_TABLE", table);
    env.put("MAX_RETRIES", "1");
    env.put("INSERT_TIMEOUT_MS", "2000");
    env.put("ANSWER_TIMEOUT_MS", "5000");
    return env;
  }

  /**
   * Starts the jar on a free port and waits until it is ready; its log goes under {@code
   * target/emulator-runs/} so that a failed run can be read.
   */
  static ServiceProcess start(String name, Map<String, String> env) throws Exception {
    Path work =
        Files.createDirectories(
            Path.of("target", "emulator-runs", name + "-" + System.currentTimeMillis()));
    return ServiceProcess.small(env, work.resolve("service.log")).start();
  }

  /** Stops it if it still runs (after a failed assertion too). */
  static void stop(ServiceProcess service) throws IOException, InterruptedException {
    if (service != null && service.alive()) {
      service.terminate();
    }
  }
}
