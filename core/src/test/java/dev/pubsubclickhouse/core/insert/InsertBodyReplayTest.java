package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import java.util.List;
import java.util.Map;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP client under client-v2 repeats a request by itself when the answer is 503 or 429 (after
 * a second, whatever client-v2's own retry setting). A request body read from a one-shot stream is
 * empty the second time, ClickHouse answers an empty INSERT with 200, and the rows are reported
 * written when none were: found by the fault-accounting test (docs/reliability.md). Every request
 * must carry the rows.
 */
class InsertBodyReplayTest {
  private MockWebServer clickHouse;
  private Client client;
  private ClickHouseInserter inserter;

  @BeforeEach
  void start() throws Exception {
    clickHouse = new MockWebServer();
    clickHouse.start();
    ClickHouseConfig config =
        ClickHouseConfig.read(
            new ConfigReader(
                Map.of(
                    "CLICKHOUSE_URL", "http://127.0.0.1:" + clickHouse.getPort(),
                    "CLICKHOUSE_DATABASE", "db",
                    "CLICKHOUSE_TABLE", "t",
                    "MAX_RETRIES", "0",
                    "INSERT_TIMEOUT_MS", "5000")),
            new SecretManagerAccess(Map.of()));
    client = ClickHouseClients.open(config, "replay-test", 2);
    inserter = new ClickHouseInserter(client, config.insertOptions());
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    clickHouse.shutdown();
  }

  private static RowBinaryOutput rows() {
    RowBinaryOutput rows = new RowBinaryOutput();
    for (int i = 0; i < 100; i++) {
      rows.writeByte(0);
      rows.writeIntLE(i);
    }
    return rows;
  }

  private static MockResponse ok() {
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("X-ClickHouse-Summary", "{\"written_rows\":\"100\",\"written_bytes\":\"400\"}");
  }

  @Test
  void aRequestRepeatedByTheHttpClientAfterA503CarriesTheRowsAgain() throws Exception {
    clickHouse.enqueue(new MockResponse().setResponseCode(503).setBody("Service Unavailable"));
    clickHouse.enqueue(ok());
    long written =
        inserter.insert(
            new dev.pubsubclickhouse.core.schema.TableName("db", "t"),
            List.of("v"),
            rows(),
            "token-1",
            false);
    assertThat(written).isEqualTo(100);
    assertThat(clickHouse.getRequestCount()).isEqualTo(2);
    RecordedRequest refused = clickHouse.takeRequest();
    RecordedRequest accepted = clickHouse.takeRequest();
    assertThat(refused.getBodySize()).isPositive();
    assertThat(accepted.getBody().readByteArray())
        .as("the request ClickHouse accepted holds the rows")
        .hasSize((int) refused.getBodySize());
  }

  @Test
  void aRequestRepeatedAfterA429CarriesTheRowsAgain() throws Exception {
    clickHouse.enqueue(new MockResponse().setResponseCode(429).setBody("Too Many Requests"));
    clickHouse.enqueue(ok());
    try {
      inserter.insert(
          new dev.pubsubclickhouse.core.schema.TableName("db", "t"),
          List.of("v"),
          rows(),
          "token-1",
          false);
    } catch (InsertException refused) {
      // Failing is allowed; writing nothing while reporting success is not.
    }
    for (int i = 0; i < clickHouse.getRequestCount(); i++) {
      assertThat(clickHouse.takeRequest().getBodySize()).as("request %d", i + 1).isPositive();
    }
  }
}
