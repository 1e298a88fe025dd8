package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.schema.TableName;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.SocketPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Faults a healthy ClickHouse will not produce on demand (503, memory limit, too many parts, a hung
 * server), injected by MockWebServer speaking ClickHouse's HTTP error format.
 */
class InsertFaultTest {
  private MockWebServer clickHouse;
  private Client client;
  private ClickHouseInserter inserter;
  private final RowBinaryOutput rows = new RowBinaryOutput();

  @BeforeEach
  void start() throws Exception {
    clickHouse = new MockWebServer();
    clickHouse.start();
    client =
        new Client.Builder()
            .addEndpoint("http://127.0.0.1:" + clickHouse.getPort())
            .setUsername("default")
            .setPassword("")
            .setMaxRetries(0)
            .setSocketTimeout(500, ChronoUnit.MILLIS)
            .build();
    InsertOptions options =
        new InsertOptions(
            1_000_000,
            true,
            Optional.empty(),
            true,
            false,
            Map.of(),
            2,
            Duration.ofMillis(1),
            Duration.ofMillis(5),
            Duration.ofSeconds(2));
    inserter = new ClickHouseInserter(client, options);
    rows.writeByte(0);
    rows.writeIntLE(42);
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    clickHouse.shutdown();
  }

  private static MockResponse serverError(int code, String name) {
    return new MockResponse()
        .setResponseCode(500)
        .setHeader("X-ClickHouse-Exception-Code", Integer.toString(code))
        .setBody("Code: " + code + ". DB::Exception: injected " + name + ". (" + name + ")\n");
  }

  private static MockResponse ok() {
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("X-ClickHouse-Summary", "{\"written_rows\":\"1\",\"written_bytes\":\"5\"}");
  }

  private long insert() throws Exception {
    return inserter.insert(new TableName("db", "t"), List.of("v"), rows, "token-1", false);
  }

  @Test
  void aMemoryLimitErrorIsRetriedAndThenSucceeds() throws Exception {
    clickHouse.enqueue(serverError(241, "MEMORY_LIMIT_EXCEEDED"));
    clickHouse.enqueue(ok());
    assertThat(insert()).isEqualTo(1);
    assertThat(clickHouse.getRequestCount()).isEqualTo(2);
  }

  @Test
  void tooManyPartsIsTransientAndGivesUpAfterTheRetries() {
    for (int i = 0; i < 3; i++) {
      clickHouse.enqueue(serverError(252, "TOO_MANY_PARTS"));
    }
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(FailureKind.TRANSIENT);
              assertThat(e.serverCode()).isEqualTo(252);
              assertThat(e.attempts()).isEqualTo(3);
            });
    assertThat(clickHouse.getRequestCount()).isEqualTo(3);
  }

  @Test
  void anHttp503IsTransient() {
    for (int i = 0; i < 3; i++) {
      clickHouse.enqueue(new MockResponse().setResponseCode(503).setBody("Service Unavailable"));
    }
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.TRANSIENT));
  }

  @Test
  void aHungServerTimesOutAsTransient() {
    for (int i = 0; i < 3; i++) {
      clickHouse.enqueue(new MockResponse().setSocketPolicy(SocketPolicy.NO_RESPONSE));
    }
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.TRANSIENT));
  }

  @Test
  void aParseErrorIsBadDataAndNotRetried() {
    clickHouse.enqueue(serverError(27, "CANNOT_PARSE_INPUT_ASSERTION_FAILED"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(FailureKind.BAD_DATA);
              assertThat(e.attempts()).isEqualTo(1);
              assertThat(e.getMessage())
                  .startsWith("INSERT failed (bad_data, code 27, 1 attempt): ");
            });
    assertThat(clickHouse.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aChangedTableAsksForTheSchemaAgain() {
    clickHouse.enqueue(serverError(16, "NO_SUCH_COLUMN_IN_TABLE"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.SCHEMA_CHANGED));
  }

  @Test
  void anAccessErrorIsFatalAndNotRetried() {
    clickHouse.enqueue(serverError(497, "ACCESS_DENIED"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.FATAL));
    assertThat(clickHouse.getRequestCount()).isEqualTo(1);
  }

  @Test
  void everyAttemptSendsTheSameRowsAndDeduplicationToken() throws Exception {
    clickHouse.enqueue(serverError(241, "MEMORY_LIMIT_EXCEEDED"));
    clickHouse.enqueue(ok());
    insert();
    var first = clickHouse.takeRequest();
    var second = clickHouse.takeRequest();
    assertThat(first.getRequestUrl().queryParameter("insert_deduplication_token"))
        .isEqualTo("token-1");
    assertThat(second.getRequestUrl().queryParameter("insert_deduplication_token"))
        .isEqualTo("token-1");
    assertThat(second.getBody().size()).isEqualTo(first.getBody().size()).isPositive();
  }
}
