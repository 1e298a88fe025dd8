package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.GrantsSqlUser;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The service jar logged in as the user of sql/grants.sql, on the tables of sql/logs.sql and
 * sql/dead_letter_table.sql: a good message is stored as sent, a bad one lands in the dead-letter
 * table with its reason, and part-pressure flow control reads the table's load. Any of the three
 * fails when the file lacks a grant the service uses.
 */
@ClickHouseTest
class GrantsSqlIT {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final TestDatabase database;

  GrantsSqlIT(TestDatabase database) {
    this.database = database;
  }

  private static int post(URI url, String id, String data) throws Exception {
    String envelope =
        "{\"message\":{\"data\":\""
            + Base64.getEncoder().encodeToString(data.getBytes(StandardCharsets.UTF_8))
            + "\",\"messageId\":\""
            + id
            + "\"},\"subscription\":\"projects/p/subscriptions/s\"}";
    return HTTP.send(
            HttpRequest.newBuilder(url)
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(envelope))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  @Test
  void theServiceWritesRowsAndDeadLettersAndReadsTheTableLoadWithTheseGrantsAlone()
      throws Exception {
    ClickHouseServer login = GrantsSqlUser.on(database);
    Path work = Files.createDirectories(Path.of("target", "grants-sql"));
    try (ServiceProcess service =
        new ServiceProcess(
                Map.of(
                    "CLICKHOUSE_URL", login.url(),
                    "CLICKHOUSE_USER", login.user(),
                    "CLICKHOUSE_PASSWORD", login.password(),
                    "CLICKHOUSE_DATABASE", "realtime",
                    "CLICKHOUSE_TABLE", "logs",
                    "CLICKHOUSE_DEAD_LETTER_TABLE", "realtime.logs_dead_letter",
                    "PUSH_AUTH", "none"),
                List.of("-Xmx256m", "-XX:+UseSerialGC"),
                work.resolve("service-" + System.currentTimeMillis() + ".log"),
                LocalClickHouse.freePort())
            .start()) {
      String good =
          "{\"event_time\":\"2026-01-15T12:34:56Z\",\"service\":\"api\",\"level\":\"INFO\","
              + "\"message\":\"hello\"}";
      String bad =
          "{\"event_time\":\"yesterday\",\"service\":\"api\",\"level\":\"INFO\",\"message\":\"x\"}";
      assertThat(post(service.url(), "good-1", good)).as(service.output()).isEqualTo(204);
      assertThat(post(service.url(), "bad-1", bad)).as(service.output()).isBetween(200, 299);

      assertThat(
              database.query(
                  "SELECT toString(event_time, 'UTC'), service, level, message FROM realtime.logs"))
          .isEqualTo("2026-01-15 12:34:56\tapi\tINFO\thello");
      assertThat(
              database.query(
                  "SELECT message_id, raw_message, error_message LIKE '%event_time%yesterday%'"
                      + " FROM realtime.logs_dead_letter"))
          .isEqualTo("bad-1\t" + bad + "\t1");

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      long parts = service.metric("pubsub_clickhouse_table_partition_parts");
      while (parts < 1 && System.nanoTime() < deadline) {
        Thread.sleep(200);
        parts = service.metric("pubsub_clickhouse_table_partition_parts");
      }
      assertThat(parts).as("the target's parts as flow control read them").isEqualTo(1);
      assertThat(service.output())
          .doesNotContain("cannot read the target table's load")
          .doesNotContain("ACCESS_DENIED");
    }
  }
}
