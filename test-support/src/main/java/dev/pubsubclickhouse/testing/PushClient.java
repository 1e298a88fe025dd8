package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;

/**
 * Push requests from many senders at once, as a load on the service: HTTP/1.1, a JSON body, and an
 * answer awaited for up to 60 s (a request held in the service's queue may take that long).
 */
public final class PushClient {
  private final HttpClient http;

  /** A client that handles its answers on {@code threads} threads of its own. */
  public PushClient(int threads) {
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .executor(Executors.newFixedThreadPool(threads))
            .build();
  }

  /** POSTs {@code body} as JSON to {@code url}; the answer's status (its body is discarded). */
  public int post(URI url, byte[] body) throws IOException, InterruptedException {
    return http.send(
            HttpRequest.newBuilder(url)
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
