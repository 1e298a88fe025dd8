package dev.pubsubclickhouse.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.functions.HttpFunction;
import com.google.cloud.functions.HttpRequest;
import com.google.cloud.functions.HttpResponse;
import com.google.cloud.functions.invoker.runner.Invoker;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.util.Base64;
import java.util.concurrent.Executors;

/**
 * The naive baseline: the seed tutorial's approach, one synchronous INSERT per push message
 * straight into ClickHouse's HTTP interface. It parses the envelope, decodes {@code data} and sends
 * it as {@code INSERT INTO table FORMAT JSONEachRow} with {@code async_insert=0} (explicit, as the
 * 26.x server defaults it to 1), answering 204 when ClickHouse answers 200 and 503 otherwise. Same
 * Functions Framework invoker as the service and the bare handler.
 *
 * <p>With {@code NAIVE_ASYNC_INSERT=1} it is the ClickHouse-savvy version of the same handler: each
 * INSERT carries {@code async_insert=1, wait_for_async_insert=1}, so ClickHouse gathers the small
 * INSERTs of every client into one part and answers each once its rows are written (nothing is
 * acknowledged early).
 *
 * <p>{@code java -cp benchmarks.jar dev.pubsubclickhouse.benchmarks.NaiveHandler PORT} with {@code
 * CLICKHOUSE_URL}, {@code NAIVE_TABLE} ({@code db.table}) and optionally {@code NAIVE_ASYNC_INSERT}
 * in the environment.
 */
public final class NaiveHandler implements HttpFunction {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .executor(Executors.newCachedThreadPool())
          .build();
  private static final URI INSERT =
      URI.create(
          System.getenv().getOrDefault("CLICKHOUSE_URL", "http://127.0.0.1:18123")
              + ("1".equals(System.getenv("NAIVE_ASYNC_INSERT"))
                  ? "/?async_insert=1&wait_for_async_insert=1&query="
                  : "/?async_insert=0&query=")
              + URLEncoder.encode(
                  "INSERT INTO "
                      + System.getenv().getOrDefault("NAIVE_TABLE", "default.seed")
                      + " FORMAT JSONEachRow",
                  java.nio.charset.StandardCharsets.UTF_8));

  @Override
  public void service(HttpRequest request, HttpResponse response) throws IOException {
    JsonNode envelope;
    try (InputStream body = request.getInputStream()) {
      envelope = JSON.readTree(body);
    }
    byte[] data = Base64.getDecoder().decode(envelope.path("message").path("data").asText(""));
    try {
      java.net.http.HttpResponse<Void> answer =
          CLIENT.send(
              java.net.http.HttpRequest.newBuilder(INSERT)
                  .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(data))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.discarding());
      response.setStatusCode(answer.statusCode() == 200 ? 204 : 503);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      response.setStatusCode(503);
    } catch (IOException e) {
      response.setStatusCode(503);
    }
  }

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8091;
    new Invoker(port, NaiveHandler.class.getName(), "http", NaiveHandler.class.getClassLoader())
        .startServer();
  }
}
