package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * The push service as Pub/Sub sees it: the real {@link PushFunction} behind {@link PushServer} on a
 * free port, configured from a map of environment variables, against a real ClickHouse.
 */
final class RunningService implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  final PushService service;
  private final PushServer server;
  private final URI url;

  private RunningService(PushService service, PushServer server, int port) {
    this.service = service;
    this.server = server;
    this.url = URI.create("http://127.0.0.1:" + port + "/");
  }

  /** The service on {@code database}, writing {@code table}, with extra settings. */
  static RunningService start(TestDatabase database, String table, Map<String, String> settings)
      throws Exception {
    return start(environment(database, table, settings));
  }

  /** The environment of a service on {@code database}, writing {@code table}. */
  static Map<String, String> environment(
      TestDatabase database, String table, Map<String, String> settings) {
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", database.server().url());
    env.put("CLICKHOUSE_USER", database.server().user());
    env.put("CLICKHOUSE_PASSWORD", database.server().password());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("CLICKHOUSE_TABLE", table);
    env.put("SUMMARY_INTERVAL_SECONDS", "3600");
    env.putAll(settings);
    return env;
  }

  /** The service from these environment variables, once its write path is open. */
  static RunningService start(Map<String, String> env) throws Exception {
    RunningService running = startUnready(env);
    if (!running.service.awaitReady(Duration.ofSeconds(60))) {
      String reason = running.service.unhealthyReason().orElse("?");
      running.close();
      throw new AssertionError("the service did not become ready: " + reason);
    }
    return running;
  }

  /** The service serving at once, its write path opening when ClickHouse and the tables answer. */
  static RunningService startUnready(Map<String, String> env) throws Exception {
    PushService service = PushService.start(PushConfig.read(env));
    PushServer server = PushServer.start(0, service);
    return new RunningService(service, server, server.port());
  }

  /**
   * Waits up to 30 s for the service's reason for being unready to contain {@code text}; returns
   * the reason it gives then, whatever it is.
   */
  String unreadyReasonOnceItNames(String text) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    String reason = service.unhealthyReason().orElse("");
    while (!reason.contains(text) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      reason = service.unhealthyReason().orElse("");
    }
    return reason;
  }

  /**
   * Waits up to 30 s for the write path to open; fails with the service's reason if it does not.
   */
  void assertBecomesReady() throws InterruptedException {
    assertThat(service.awaitReady(Duration.ofSeconds(30)))
        .as(service.unhealthyReason().orElse(""))
        .isTrue();
  }

  URI url() {
    return url;
  }

  /** POSTs a wrapped push request for a message with this data and id; returns the status. */
  int push(String messageId, String data) throws Exception {
    return push(messageId, data.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  int push(String messageId, byte[] data, Map<String, String> attributes) throws Exception {
    return post(
            pushRequest(messageId, data, attributes), Map.of("Content-Type", "application/json"))
        .statusCode();
  }

  /** The whole answer to a push request for a message with this data and id, its body as sent. */
  HttpResponse<byte[]> answer(String messageId, String data, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(url)
            .timeout(Duration.ofSeconds(90))
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofByteArray(
                    pushRequest(messageId, data.getBytes(StandardCharsets.UTF_8), Map.of())));
    headers.forEach(request::header);
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  /** A wrapped push request, as Pub/Sub sends it. */
  private static byte[] pushRequest(String messageId, byte[] data, Map<String, String> attributes) {
    StringBuilder attributesJson = new StringBuilder("{");
    attributes.forEach(
        (key, value) -> {
          if (attributesJson.length() > 1) {
            attributesJson.append(',');
          }
          attributesJson.append('"').append(key).append("\":\"").append(value).append('"');
        });
    attributesJson.append('}');
    String body =
        "{\"message\":{\"data\":\""
            + Base64.getEncoder().encodeToString(data)
            + "\","
            + "\"attributes\":"
            + attributesJson
            + ","
            + "\"messageId\":\""
            + messageId
            + "\",\"publishTime\":\"2026-01-15T12:34:56.789Z\"},"
            + "\"subscription\":\"projects/test/subscriptions/push\",\"deliveryAttempt\":1}";
    return body.getBytes(StandardCharsets.UTF_8);
  }

  HttpResponse<String> post(byte[] body, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(url)
            .timeout(Duration.ofSeconds(90))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(request::header);
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(url.resolve(path)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** {@code GET /healthz} once the service has asked ClickHouse at least once. */
  HttpResponse<String> healthOnceTried() throws Exception {
    for (int i = 0; i < 600; i++) {
      HttpResponse<String> health = get("/healthz");
      if (!health.body().startsWith("starting:")) {
        return health;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("ClickHouse not tried within 30 s");
  }

  @Override
  public void close() throws Exception {
    server.close();
    service.shutdown(5);
  }
}
