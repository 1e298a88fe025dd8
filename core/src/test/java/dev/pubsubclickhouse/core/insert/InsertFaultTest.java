package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.schema.TableName;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import net.jpountz.lz4.LZ4FrameInputStream;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.mockwebserver.SocketPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Faults a healthy ClickHouse will not produce on demand (503, memory limit, too many parts, a hung
 * server), injected by MockWebServer speaking ClickHouse's HTTP error format.
 */
class InsertFaultTest {
  private static final InsertColumns COLUMNS =
      new InsertColumns(List.of("v"), List.of("Int32"), false);

  private MockWebServer clickHouse;
  private ClickHouseInserter inserter;
  private final RowBinaryOutput rows = new RowBinaryOutput();

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
                    "CLICKHOUSE_PASSWORD", "fault-test-password")),
            new SecretManagerAccess(Map.of()));
    InsertOptions options =
        config.insertOptions().toBuilder()
            .maxRetries(2)
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
            .timeout(Duration.ofMillis(500))
            .build();
    inserter =
        new ClickHouseInserter(
            ClickHouseHttp.open(config, "fault-test"), InsertFormat.TYPED, options);
    rows.writeByte(0);
    rows.writeIntLE(42);
  }

  @AfterEach
  void stop() throws Exception {
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
    return inserter.insert(new TableName("db", "t"), COLUMNS, rows, "token-1");
  }

  private static byte[] body(RecordedRequest request) throws Exception {
    byte[] body = request.getBody().readByteArray();
    if (!"lz4".equals(request.getHeader("Content-Encoding"))) {
      return body;
    }
    try (var in = new LZ4FrameInputStream(new ByteArrayInputStream(body))) {
      return in.readAllBytes();
    }
  }

  @Test
  void anInsertFromFourKibibytesIsSentLz4Compressed() throws Exception {
    RowBinaryOutput large = new RowBinaryOutput();
    for (int i = 0; i < 1_000; i++) {
      large.writeBytes(rows.toByteArray());
    }
    clickHouse.enqueue(ok());
    inserter.insert(new TableName("db", "t"), COLUMNS, large, "token-1");
    RecordedRequest request = clickHouse.takeRequest();
    assertThat(request.getHeader("Content-Encoding")).isEqualTo("lz4");
    RowBinaryOutput expected = new RowBinaryOutput();
    expected.writeBytes(COLUMNS.typedHeader());
    expected.writeBytes(large.toByteArray());
    assertThat(expected.size()).isGreaterThanOrEqualTo(4096);
    assertThat(body(request)).isEqualTo(expected.toByteArray());
    assertThat(request.getBodySize()).isLessThan(expected.size());
  }

  @Test
  void theRequestCarriesTheTypedHeaderAndTheRowsAndNamesTheFormat() throws Exception {
    clickHouse.enqueue(ok());
    assertThat(insert()).isEqualTo(1);
    RecordedRequest request = clickHouse.takeRequest();
    RowBinaryOutput expected = new RowBinaryOutput();
    expected.writeBytes(COLUMNS.typedHeader());
    expected.writeBytes(rows.toByteArray());
    assertThat(body(request)).isEqualTo(expected.toByteArray());
    assertThat(request.getHeader("Content-Encoding")).as("a small INSERT goes as it is").isNull();
    assertThat(request.getRequestUrl().queryParameter("query"))
        .isEqualTo("INSERT INTO `db`.`t` (`v`) FORMAT RowBinaryWithNamesAndTypesAndDefaults");
    assertThat(request.getRequestUrl().queryParameter("async_insert")).isEqualTo("0");
    assertThat(request.getRequestUrl().queryParameter("materialized_views_ignore_errors"))
        .isEqualTo("0");
    assertThat(request.getRequestUrl().queryParameter("insert_distributed_one_random_shard"))
        .isEqualTo("0");
    assertThat(
            request
                .getRequestUrl()
                .queryParameter("deduplicate_blocks_in_dependent_materialized_views"))
        .isEqualTo("1");
    assertThat(request.getRequestUrl().toString()).doesNotContain("fault-test-password");
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
  void anHttp503WithoutACodeIsTransient() {
    for (int i = 0; i < 3; i++) {
      clickHouse.enqueue(new MockResponse().setResponseCode(503).setBody("Service Unavailable"));
    }
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.TRANSIENT));
  }

  @Test
  void aProxysForbiddenWithoutACodeIsNotTheRows() {
    clickHouse.enqueue(new MockResponse().setResponseCode(403).setBody("Forbidden"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.NOT_THE_ROWS));
    assertThat(clickHouse.getRequestCount()).isEqualTo(1);
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
  void aParseErrorIsARefusalAndNotRetried() {
    clickHouse.enqueue(serverError(27, "CANNOT_PARSE_INPUT_ASSERTION_FAILED"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(FailureKind.REFUSED);
              assertThat(e.attempts()).isEqualTo(1);
              assertThat(e.getMessage())
                  .startsWith("INSERT failed (refused, code 27, 1 attempt): Code: 27.");
            });
    assertThat(clickHouse.getRequestCount()).isEqualTo(1);
  }

  @Test
  void anUnknownCodeIsARefusal() {
    clickHouse.enqueue(serverError(9999, "SOMETHING_NEW"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.REFUSED));
  }

  @Test
  void aChangedTableAsksForTheSchemaAgain() {
    clickHouse.enqueue(serverError(16, "NO_SUCH_COLUMN_IN_TABLE"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.SCHEMA_CHANGED));
  }

  @Test
  void aHeaderTypeMismatchIsASchemaChangeButOtherIncorrectDataIsARefusal() {
    clickHouse.enqueue(
        new MockResponse()
            .setResponseCode(400)
            .setHeader("X-ClickHouse-Exception-Code", "117")
            .setBody(
                "Code: 117. DB::Exception: Type of 'v' must be Int64, not Int32: (while reading"
                    + " header): While executing BinaryRowInputFormat. (INCORRECT_DATA)\n"));
    clickHouse.enqueue(serverError(117, "INCORRECT_DATA"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.SCHEMA_CHANGED));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.REFUSED));
  }

  @Test
  void anAccessErrorIsNotTheRowsAndNotRetried() {
    clickHouse.enqueue(serverError(497, "ACCESS_DENIED"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.NOT_THE_ROWS));
    assertThat(clickHouse.getRequestCount()).isEqualTo(1);
  }

  @Test
  void everyAttemptSendsTheSameRowsAndDeduplicationToken() throws Exception {
    clickHouse.enqueue(serverError(241, "MEMORY_LIMIT_EXCEEDED"));
    clickHouse.enqueue(new MockResponse().setResponseCode(503).setBody("Service Unavailable"));
    clickHouse.enqueue(ok());
    insert();
    RecordedRequest first = clickHouse.takeRequest();
    RecordedRequest second = clickHouse.takeRequest();
    RecordedRequest third = clickHouse.takeRequest();
    for (RecordedRequest request : List.of(first, second, third)) {
      assertThat(request.getRequestUrl().queryParameter("insert_deduplication_token"))
          .isEqualTo("token-1");
    }
    byte[] rowsSent = body(first);
    assertThat(body(second)).isEqualTo(rowsSent);
    assertThat(body(third)).isEqualTo(rowsSent).hasSizeGreaterThan(5);
  }

  @Test
  void anErrorInsideA200AnswerIsAnErrorNotAWrite() {
    clickHouse.enqueue(
        new MockResponse()
            .setResponseCode(200)
            .setHeader("X-ClickHouse-Exception-Code", "469")
            .setBody(
                "Code: 469. DB::Exception: Constraint `small` is violated. (VIOLATED_CONSTRAINT)\n"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(FailureKind.REFUSED);
              assertThat(e.serverCode()).isEqualTo(469);
            });
  }

  @Test
  void a200WithoutClickHousesSummaryIsNotAWrite() {
    clickHouse.enqueue(new MockResponse().setResponseCode(200).setBody("<html>a proxy</html>"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(FailureKind.NOT_THE_ROWS);
              assertThat(e.getMessage()).contains("not a ClickHouse server");
            });
  }

  @Test
  void aFailureInsideAViewIsNeverRetriedWhateverItsCode() {
    clickHouse.enqueue(
        serverError(241, "MEMORY_LIMIT_EXCEEDED")
            .setBody(
                "Code: 241. DB::Exception: Memory limit exceeded: while pushing to view db.mv.\n"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(FailureKind.VIEW_FAILED);
              assertThat(e.attempts()).isEqualTo(1);
            });
    assertThat(clickHouse.getRequestCount()).isEqualTo(1);
  }

  @Test
  void tooManyPartitionsForOneInsertIsARefusalThatASplitCures() {
    clickHouse.enqueue(
        serverError(252, "TOO_MANY_PARTS")
            .setBody(
                "Code: 252. DB::Exception: Too many partitions for single INSERT block (more than"
                    + " 2). (TOO_MANY_PARTS)\n"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.REFUSED));
    assertThat(clickHouse.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aProxysPayloadTooLargeIsARefusalThatASplitCures() {
    clickHouse.enqueue(new MockResponse().setResponseCode(413).setBody("Request Entity Too Large"));
    assertThatThrownBy(this::insert)
        .isInstanceOfSatisfying(
            InsertException.class, e -> assertThat(e.kind()).isEqualTo(FailureKind.REFUSED));
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {173, 225, 279, 286, 499, 1000})
  void outagesOutsideClientV2sListAreRetriedToo(int code) throws Exception {
    clickHouse.enqueue(serverError(code, "AN_OUTAGE"));
    clickHouse.enqueue(ok());
    assertThat(insert()).isEqualTo(1);
    assertThat(clickHouse.getRequestCount()).isEqualTo(2);
  }
}
