package dev.pubsubclickhouse.core.insert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

/**
 * ClickHouse's HTTP interface for INSERTs with a body: one POST per call, the query and every
 * setting as URL parameters, the body LZ4-compressed unless it is small. client-v2 cannot send the
 * input format {@code RowBinaryWithNamesAndTypesAndDefaults} (its format enum predates it), and
 * that format is what lets ClickHouse check the column types of every INSERT, so this one request
 * is made here.
 *
 * <p>The password travels in a header and appears in no message this class builds. Thread-safe.
 */
public final class ClickHouseHttp {
  /** How much of an error answer is kept: ClickHouse's message is on its first lines. */
  private static final int MAX_ERROR_BYTES = 16 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient client;
  private final URI endpoint;
  private final String authorization;
  private final String clientName;

  private ClickHouseHttp(HttpClient client, URI endpoint, String authorization, String clientName) {
    this.client = client;
    this.endpoint = endpoint;
    this.authorization = authorization;
    this.clientName = clientName;
  }

  /** A client for the configured endpoint, user and password (and CA certificate for https). */
  public static ClickHouseHttp open(ClickHouseConfig config, String clientName) {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5));
    config.caCertificate().ifPresent(path -> builder.sslContext(trusting(path)));
    String credentials = config.user() + ":" + config.password().reveal();
    String authorization =
        "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    URI base = config.url();
    URI endpoint = base.resolve(base.getPath().isEmpty() ? "/" : base.getPath());
    return new ClickHouseHttp(builder.build(), endpoint, authorization, clientName);
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
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(uri(sql, settings))
            .timeout(timeout)
            .header("Authorization", authorization)
            .header("User-Agent", clientName);
    if (data.lz4) {
      builder.header("Content-Encoding", "lz4");
    }
    HttpRequest request = builder.POST(HttpRequest.BodyPublishers.ofByteArray(data.bytes)).build();
    HttpResponse<InputStream> response =
        client.send(request, HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream answer = response.body()) {
      Optional<String> summary = response.headers().firstValue("X-ClickHouse-Summary");
      Optional<String> exceptionCode = response.headers().firstValue("X-ClickHouse-Exception-Code");
      if (response.statusCode() == 200 && exceptionCode.isEmpty() && summary.isPresent()) {
        answer.transferTo(OutputStream.nullOutputStream()); // frees the connection for reuse
        return new Summary(writtenRows(summary).orElse(-1L));
      }
      // An error after ClickHouse began a 200 answer (send_progress_in_http_headers) comes as the
      // exception header only; a 200 without a summary is not ClickHouse's (a proxy's page).
      String message = firstLines(answer.readNBytes(MAX_ERROR_BYTES));
      if (response.statusCode() == 200 && exceptionCode.isEmpty()) {
        message = "an answer without ClickHouse's X-ClickHouse-Summary: not a ClickHouse server";
      }
      throw new ClickHouseHttpException(
          exceptionCode.map(ClickHouseHttp::parseCode).orElse(-1),
          response.statusCode(),
          message,
          writtenRows(summary).orElse(-1L));
    }
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

  private static Optional<Long> writtenRows(Optional<String> summary) {
    if (summary.isEmpty()) {
      return Optional.empty();
    }
    try {
      JsonNode written = JSON.readTree(summary.get()).get("written_rows");
      return written == null ? Optional.empty() : Optional.of(Long.parseLong(written.asText()));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
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
