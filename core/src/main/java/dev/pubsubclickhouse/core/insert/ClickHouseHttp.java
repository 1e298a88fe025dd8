package dev.pubsubclickhouse.core.insert;

import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * ClickHouse's HTTP interface for INSERTs with a body: one POST per call, the query and every
 * setting as URL parameters, the body LZ4-compressed unless it is small. client-v2 cannot send the
 * input format {@code RowBinaryWithNamesAndTypesAndDefaults} (its format enum predates it), and
 * that format is what lets ClickHouse check the column types of every INSERT, so this one request
 * is made here.
 *
 * <p>Apache HttpClient's classic (blocking) API: the calling thread writes the request and reads
 * the answer on a pooled keep-alive connection. The JDK's {@code java.net.http} client hands every
 * exchange to its selector thread and a worker thread and back, three thread hand-offs per INSERT;
 * at one request in flight they were half of the service's CPU per message (docs/performance.md).
 *
 * <p>The password travels in a header and appears in no message this class builds. Thread-safe.
 */
public final class ClickHouseHttp {
  /** How much of an error answer is kept: ClickHouse's message is on its first lines. */
  private static final int MAX_ERROR_BYTES = 16 * 1024;

  /** Connections at once: more than this process ever has INSERTs in flight. */
  private static final int MAX_CONNECTIONS = 1024;

  /**
   * A pooled connection idle this long is checked before reuse: the server (or a proxy) may have
   * closed it meanwhile.
   */
  private static final TimeValue CHECK_IDLE_AFTER = TimeValue.ofSeconds(1);

  /** A pooled connection idle this long is closed (ClickHouse may have closed its end already). */
  private static final TimeValue CLOSE_IDLE_AFTER = TimeValue.ofSeconds(20);

  /**
   * The socket read timeout while connecting (the TLS handshake); an exchange has none, its
   * deadline is {@link RequestDeadlines}'.
   */
  private static final Timeout CONNECTING_TIMEOUT = Timeout.ofSeconds(10);

  private final CloseableHttpClient client;
  private final URI endpoint;
  private final String authorization;

  private ClickHouseHttp(CloseableHttpClient client, URI endpoint, String authorization) {
    this.client = client;
    this.endpoint = endpoint;
    this.authorization = authorization;
  }

  /** A client for the configured endpoint, user and password (and CA certificate for https). */
  public static ClickHouseHttp open(ClickHouseConfig config, String clientName) {
    PoolingHttpClientConnectionManagerBuilder connections =
        PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnTotal(MAX_CONNECTIONS)
            .setMaxConnPerRoute(MAX_CONNECTIONS)
            .setDefaultConnectionConfig(
                ConnectionConfig.custom()
                    .setConnectTimeout(Timeout.ofSeconds(5))
                    .setValidateAfterInactivity(CHECK_IDLE_AFTER)
                    .build())
            .setDefaultSocketConfig(
                SocketConfig.custom().setSoTimeout(CONNECTING_TIMEOUT).setSoKeepAlive(true).build())
            .setDefaultTlsConfig(TlsConfig.custom().setHandshakeTimeout(CONNECTING_TIMEOUT).build())
            // the JVM's own TLS context (its trust store and javax.net.ssl.* properties), as the
            // JDK's client had, unless a CA certificate is configured
            .setTlsSocketStrategy(
                new DefaultClientTlsStrategy(
                    config
                        .caCertificate()
                        .map(ClickHouseHttp::trusting)
                        .orElseGet(ClickHouseHttp::jvmDefaultTls)));
    // Retries are the inserter's, with the same deduplication token; nothing else is wanted.
    CloseableHttpClient client =
        HttpClients.custom()
            .setConnectionManager(connections.build())
            .disableAutomaticRetries()
            .disableRedirectHandling()
            .disableCookieManagement()
            .disableAuthCaching()
            .disableContentCompression()
            .disableConnectionState()
            .evictIdleConnections(CLOSE_IDLE_AFTER)
            .setUserAgent(clientName)
            .build();
    String credentials = config.user() + ":" + config.password().reveal();
    String authorization =
        "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    URI base = config.url();
    URI endpoint = base.resolve(base.getPath().isEmpty() ? "/" : base.getPath());
    return new ClickHouseHttp(client, endpoint, authorization);
  }

  private static SSLContext jvmDefaultTls() {
    try {
      return SSLContext.getDefault();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no default TLS context", e);
    }
  }

  /** Writes the data of a request. */
  @FunctionalInterface
  public interface Body {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * Data from this size on is sent LZ4-compressed; smaller data as it is: an LZ4 frame costs two 64
   * KiB buffers per call, more than a one-row INSERT's whole request.
   */
  static final int COMPRESS_FROM_BYTES = 4096;

  /** A request's data, encoded once and sent as it is by every attempt. */
  public static final class RequestData {
    private final byte[] bytes;
    private final boolean lz4;

    private RequestData(byte[] bytes, boolean lz4) {
      this.bytes = bytes;
      this.lz4 = lz4;
    }
  }

  /**
   * A request's data of {@code size} bytes: LZ4-compressed from {@link #COMPRESS_FROM_BYTES}, in 64
   * KiB blocks (a larger block size costs its buffers on every call whatever the data's size).
   */
  public static RequestData data(long size, Body body) {
    try {
      if (size < COMPRESS_FROM_BYTES) {
        ByteArrayOutputStream plain = new ByteArrayOutputStream((int) size);
        body.writeTo(plain);
        return new RequestData(plain.toByteArray(), false);
      }
      ByteArrayOutputStream compressed = new ByteArrayOutputStream(4096);
      try (LZ4FrameOutputStream out =
          new LZ4FrameOutputStream(compressed, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB)) {
        body.writeTo(out);
      }
      return new RequestData(compressed.toByteArray(), true);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in memory: cannot happen
    }
  }

  /** What ClickHouse answered to a successful INSERT. */
  public record Summary(long writtenRows) {}

  /**
   * Sends {@code sql} with {@code data}.
   *
   * @param settings URL parameters: ClickHouse settings, {@code database}, {@code query_id}
   * @throws ClickHouseHttpException when ClickHouse (or something in front of it) answers an error
   * @throws IOException when the connection fails or the answer does not arrive in {@code timeout}
   */
  public Summary post(String sql, Map<String, String> settings, RequestData data, Duration timeout)
      throws IOException, InterruptedException, ClickHouseHttpException {
    if (Thread.interrupted()) {
      throw new InterruptedException("not sent: the thread was interrupted");
    }
    HttpPost request = new HttpPost(uri(sql, settings));
    // The deadline watch ends the exchange at the timeout, whatever it waits for (a write has no
    // timeout of its own). No socket read timeout besides: on a virtual thread every timed read
    // arms a timer, half as costly again as the read itself at one request in flight.
    request.setConfig(
        RequestConfig.custom()
            .setResponseTimeout(Timeout.DISABLED)
            .setConnectionRequestTimeout(Timeout.of(timeout))
            .build());
    request.setHeader("Authorization", authorization);
    if (data.lz4) {
      request.setHeader("Content-Encoding", "lz4");
    }
    request.setEntity(new ByteArrayEntity(data.bytes, ContentType.APPLICATION_OCTET_STREAM));
    try (RequestDeadlines.Watch watch = RequestDeadlines.SHARED.watch(request, timeout)) {
      try {
        ClassicHttpResponse response = client.executeOpen(null, request, null);
        try {
          return answer(response);
        } finally {
          closeQuietly(response);
        }
      } catch (IOException | RuntimeException e) {
        // An interrupt comes as an I/O error; a cancel by the deadline watch as an I/O error, a
        // cancelled connection lease or an endpoint already released, depending on the moment.
        if (Thread.interrupted()) {
          InterruptedException interrupted = new InterruptedException("interrupted");
          interrupted.initCause(e);
          throw interrupted;
        }
        if (watch.expired()) {
          SocketTimeoutException timedOut =
              new SocketTimeoutException("ClickHouse did not answer within " + timeout);
          // Suppressed, not the cause: the logs name a failure by the deepest message in its
          // causes, and the closed socket is only how the timeout ended the exchange.
          timedOut.addSuppressed(e);
          throw timedOut;
        }
        throw e instanceof IOException io ? io : new IOException("the request failed: " + e, e);
      }
    }
  }

  private static Summary answer(ClassicHttpResponse response)
      throws IOException, ClickHouseHttpException {
    Optional<String> summary = header(response, "X-ClickHouse-Summary");
    Optional<String> exceptionCode = header(response, "X-ClickHouse-Exception-Code");
    HttpEntity entity = response.getEntity();
    InputStream answer = entity == null ? InputStream.nullInputStream() : entity.getContent();
    if (response.getCode() == 200 && exceptionCode.isEmpty() && summary.isPresent()) {
      // ClickHouse ends its headers with the summary once the INSERT has ended: the rows are in,
      // whatever becomes of the rest of the answer, read to its end to free the connection.
      try {
        answer.transferTo(OutputStream.nullOutputStream());
      } catch (IOException e) {
        // the connection is closed instead of reused
      }
      return new Summary(writtenRows(summary.get()));
    }
    // An error after ClickHouse began a 200 answer (send_progress_in_http_headers) comes as the
    // exception header only; a 200 without a summary is not ClickHouse's (a proxy's page).
    String message = firstLines(answer.readNBytes(MAX_ERROR_BYTES));
    if (response.getCode() == 200 && exceptionCode.isEmpty()) {
      message = "an answer without ClickHouse's X-ClickHouse-Summary: not a ClickHouse server";
    }
    throw new ClickHouseHttpException(
        exceptionCode.map(ClickHouseHttp::parseCode).orElse(-1),
        response.getCode(),
        message,
        summary.map(ClickHouseHttp::writtenRows).orElse(-1L));
  }

  /**
   * Releases the connection (reused when the answer was read to its end, else closed). What
   * ClickHouse answered is known by then: a failure to close cannot change it.
   */
  private static void closeQuietly(ClassicHttpResponse response) {
    try {
      response.close();
    } catch (IOException e) {
      // the connection is discarded
    }
  }

  private static Optional<String> header(ClassicHttpResponse response, String name) {
    Header header = response.getFirstHeader(name);
    return header == null ? Optional.empty() : Optional.of(header.getValue());
  }

  private URI uri(String sql, Map<String, String> settings) {
    StringBuilder query = new StringBuilder("query=").append(encode(sql));
    for (Map.Entry<String, String> setting : settings.entrySet()) {
      query.append('&').append(encode(setting.getKey())).append('=');
      query.append(encode(setting.getValue()));
    }
    return URI.create(endpoint + "?" + query);
  }

  /** URL-encoded; most names and values need nothing, and are returned as they are. */
  private static String encode(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean unchanged =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || c == '.'
              || c == '*';
      if (!unchanged) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
      }
    }
    return text;
  }

  private static int parseCode(String header) {
    try {
      return Integer.parseInt(header.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * {@code written_rows} of ClickHouse's summary header, a flat JSON object of quoted numbers such
   * as {@code {"read_rows":"0","written_rows":"3",...}}; -1 when it is not there.
   */
  static long writtenRows(String summary) {
    String key = "\"written_rows\"";
    int at = summary.indexOf(key);
    if (at < 0) {
      return -1;
    }
    int i = at + key.length();
    while (i < summary.length() && " \t:\"".indexOf(summary.charAt(i)) >= 0) {
      i++;
    }
    int digits = i;
    while (i < summary.length() && summary.charAt(i) >= '0' && summary.charAt(i) <= '9') {
      i++;
    }
    // no digits, or more than a long surely holds: not a count this class can use
    return i == digits || i - digits > 18 ? -1 : Long.parseLong(summary, digits, i, 10);
  }

  /** ClickHouse's message without the stack trace some servers append. */
  private static String firstLines(byte[] answer) {
    String text = new String(answer, StandardCharsets.UTF_8).strip();
    int trace = text.indexOf("\nStack trace");
    return trace < 0 ? text : text.substring(0, trace).strip();
  }

  private static SSLContext trusting(Path caCertificate) {
    try (InputStream pem = Files.newInputStream(caCertificate)) {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int index = 0;
      for (Certificate certificate :
          CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
        trusted.setCertificateEntry("ca-" + index++, certificate);
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot read the CA certificate " + caCertificate + ": " + e.getMessage(), e);
    }
  }
}
