package dev.pubsubclickhouse.core.insert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP exchange itself, against servers that misbehave on the socket in ways neither ClickHouse
 * nor MockWebServer do on demand: one that stops reading a large body, one that closes an idle
 * keep-alive connection.
 */
class ClickHouseHttpTest {
  private static final String SUMMARY =
      "{\"read_rows\":\"0\",\"read_bytes\":\"0\",\"written_rows\":\"3\",\"written_bytes\":\"12\"}";

  private ServerSocket server;
  private Thread serving;

  @AfterEach
  void stop() throws Exception {
    if (serving != null) {
      serving.interrupt();
    }
    if (server != null) {
      server.close();
    }
  }

  private ClickHouseHttp http() {
    return ClickHouseHttp.open(
        ClickHouseConfig.read(
            new ConfigReader(
                Map.of(
                    "CLICKHOUSE_URL",
                    "http://127.0.0.1:" + server.getLocalPort(),
                    "CLICKHOUSE_TABLE",
                    "t")),
            new SecretManagerAccess(Map.of())),
        "http-test");
  }

  private void serve(ThrowingConsumer<Socket> connection) throws IOException {
    server = new ServerSocket();
    server.setReceiveBufferSize(4096); // taken by accepted sockets
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    serving =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                  connection.accept(socket);
                } catch (Exception e) {
                  // the next connection
                }
              }
            });
    serving.setDaemon(true);
    serving.start();
  }

  interface ThrowingConsumer<T> {
    void accept(T value) throws Exception;
  }

  /** Reads one request, headers and Content-Length body, and answers 200 with a summary. */
  private static void answerOne(Socket socket) throws IOException {
    readRequest(socket);
    answer(socket, "200 OK", "X-ClickHouse-Summary: " + SUMMARY, new byte[0]);
  }

  private static void answer(Socket socket, String status, String header, byte[] body)
      throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(
        ("HTTP/1.1 "
                + status
                + "\r\n"
                + header
                + "\r\nContent-Length: "
                + body.length
                + "\r\nConnection: keep-alive\r\n\r\n")
            .getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  private static void readRequest(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed");
      }
      head.write(b);
    }
    String headers = head.toString(StandardCharsets.ISO_8859_1).toLowerCase();
    int at = headers.indexOf("content-length:");
    int length = Integer.parseInt(headers.substring(at + 15, headers.indexOf('\r', at)).trim());
    in.readNBytes(length);
  }

  private static ClickHouseHttp.RequestData bytes(int size) {
    return ClickHouseHttp.data(size, out -> out.write(new byte[size]));
  }

  @Test
  void writtenRowsIsReadFromTheSummaryHeader() {
    assertThat(ClickHouseHttp.writtenRows(SUMMARY)).isEqualTo(3);
    assertThat(ClickHouseHttp.writtenRows("{\"written_rows\": \"9007199254740993\"}"))
        .isEqualTo(9007199254740993L);
    assertThat(ClickHouseHttp.writtenRows("{\"written_rows\":17}")).isEqualTo(17);
    assertThat(ClickHouseHttp.writtenRows("{\"read_rows\":\"5\"}")).isEqualTo(-1);
    assertThat(ClickHouseHttp.writtenRows("{\"written_rows\":\"\"}")).isEqualTo(-1);
    assertThat(ClickHouseHttp.writtenRows("{\"written_rows\":\"99999999999999999999\"}"))
        .as("more digits than a long holds: not a count")
        .isEqualTo(-1);
  }

  @Test
  void aServerThatStopsReadingABodyTimesOutInsteadOfHanging() throws Exception {
    serve(
        socket -> {
          Thread.sleep(60_000); // accepted, never read
        });
    ClickHouseHttp http = http();
    // far more than the socket buffers on both sides take: the write blocks
    ClickHouseHttp.RequestData large =
        ClickHouseHttp.data(
            16 << 20,
            out -> {
              java.util.Random random = new java.util.Random(1); // incompressible
              byte[] chunk = new byte[1 << 20];
              for (int i = 0; i < 16; i++) {
                random.nextBytes(chunk);
                out.write(chunk);
              }
            });
    long start = System.nanoTime();
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () ->
            assertThatThrownBy(
                    () ->
                        http.post(
                            "INSERT INTO t FORMAT RowBinary",
                            Map.of(),
                            large,
                            Duration.ofMillis(500)))
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessageContaining("did not answer within"));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void consecutiveInsertsShareOneConnection() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    serve(
        socket -> {
          connections.incrementAndGet();
          while (true) {
            answerOne(socket);
          }
        });
    ClickHouseHttp http = http();
    for (int i = 0; i < 5; i++) {
      assertThat(
              http.post(
                  "INSERT INTO t FORMAT RowBinary", Map.of(), bytes(8), Duration.ofSeconds(5)))
          .isEqualTo(new ClickHouseHttp.Summary(3));
    }
    assertThat(connections).hasValue(1);
  }

  @Test
  void anErrorAnswerLongerThanWhatIsKeptLeavesNothingForTheNextInsertToRead() throws Exception {
    byte[] longError = new byte[40 * 1024];
    java.util.Arrays.fill(longError, (byte) 'x');
    byte[] message =
        "Code: 241. DB::Exception: Memory limit exceeded\n".getBytes(StandardCharsets.UTF_8);
    System.arraycopy(message, 0, longError, 0, message.length);
    serve(
        socket -> {
          readRequest(socket);
          answer(
              socket, "500 Internal Server Error", "X-ClickHouse-Exception-Code: 241", longError);
          while (true) {
            answerOne(socket);
          }
        });
    ClickHouseHttp http = http();
    assertThatThrownBy(
            () ->
                http.post(
                    "INSERT INTO t FORMAT RowBinary", Map.of(), bytes(8), Duration.ofSeconds(5)))
        .isInstanceOfSatisfying(
            ClickHouseHttpException.class,
            e -> {
              assertThat(e.code()).isEqualTo(241);
              assertThat(e.getMessage()).contains("Memory limit exceeded");
            });
    assertThat(
            http.post("INSERT INTO t FORMAT RowBinary", Map.of(), bytes(8), Duration.ofSeconds(5)))
        .isEqualTo(new ClickHouseHttp.Summary(3));
  }

  @Test
  void aKeepAliveConnectionTheServerClosedWhileIdleIsNotAFailure() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    serve(
        socket -> {
          connections.incrementAndGet();
          answerOne(socket);
          Thread.sleep(100); // then closes it, as a server's keep-alive timeout does
        });
    ClickHouseHttp http = http();
    assertThat(
            http.post("INSERT INTO t FORMAT RowBinary", Map.of(), bytes(8), Duration.ofSeconds(5)))
        .isEqualTo(new ClickHouseHttp.Summary(3));
    Thread.sleep(1_500);
    assertThat(
            http.post("INSERT INTO t FORMAT RowBinary", Map.of(), bytes(8), Duration.ofSeconds(5)))
        .isEqualTo(new ClickHouseHttp.Summary(3));
    assertThat(connections).hasValue(2);
  }
}
