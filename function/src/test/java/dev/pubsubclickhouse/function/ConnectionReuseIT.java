package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Pub/Sub keeps its connections open and sends the next push on the one that just answered. A
 * request answered without its body (refused, misrouted) must leave that connection usable, or say
 * {@code Connection: close}: a connection closed without notice fails the next push on it. Spoken
 * over a raw socket, so that the body can arrive after the answer is decided.
 */
@ClickHouseTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConnectionReuseIT {
  /**
   * Larger than {@link RequestBody#DRAIN_LIMIT}, so that a 413 body is one the drain would skip.
   */
  private static final int REQUEST_LIMIT = 1 << 20;

  private final TestDatabase database;
  private RunningService service;

  ConnectionReuseIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeAll
  void start() throws Exception {
    database.execute("CREATE TABLE reuse (n UInt32) ENGINE = MergeTree ORDER BY n");
    service =
        RunningService.start(
            database, "reuse", Map.of("MAX_REQUEST_BYTES", Integer.toString(REQUEST_LIMIT)));
  }

  @AfterAll
  void stop() throws Exception {
    service.close();
  }

  /** Everything the server sends until it closes the connection or is silent for a second. */
  private static String readAll(Socket socket) throws Exception {
    socket.setSoTimeout(1_000);
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[4096];
    try {
      for (int n; (n = in.read(buffer)) != -1; ) {
        received.write(buffer, 0, n);
      }
    } catch (SocketTimeoutException silent) {
      // the connection stays open
    }
    return received.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void aShortBodyTheAnswerDidNotNeedIsReadAndTheConnectionCarriesTheNextRequest() throws Exception {
    String body = "{\"message\":{\"data\":\"\"}}".repeat(4);
    try (Socket socket = new Socket("127.0.0.1", service.url().getPort())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /not-here HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                  + "Content-Length: "
                  + body.length()
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      Thread.sleep(300); // the answer (404) is decided before the body arrives
      out.write(body.getBytes(StandardCharsets.ISO_8859_1));
      out.write("GET /livez HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      out.flush();

      String received = readAll(socket);

      assertThat(received).startsWith("HTTP/1.1 404").contains("HTTP/1.1 200");
      assertThat(received.toLowerCase()).doesNotContain("connection: close");
    }
  }

  @Test
  void aLongBodyTheAnswerDidNotNeedClosesTheConnectionAndTheAnswerSaysSo() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", service.url().getPort())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /not-here HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                  + "Content-Length: "
                  + (RequestBody.DRAIN_LIMIT + 1)
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();

      String received = readAll(socket);

      assertThat(received).startsWith("HTTP/1.1 404");
      assertThat(received.toLowerCase()).contains("connection: close");
    }
  }

  @Test
  void aBodyOverTheLimitIsReadSoThatIts413ArrivesAndTheConnectionCarriesTheNextRequest()
      throws Exception {
    byte[] body = new byte[REQUEST_LIMIT + 1];
    java.util.Arrays.fill(body, (byte) ' ');
    try (Socket socket = new Socket("127.0.0.1", service.url().getPort())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                  + "Content-Length: "
                  + body.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      out.write(body);
      out.write("GET /livez HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      out.flush();

      String received = readAll(socket);

      assertThat(received).startsWith("HTTP/1.1 413").contains("HTTP/1.1 200");
    }
  }
}
