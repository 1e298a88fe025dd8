package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.mockwebserver.SocketPolicy;
import okio.Buffer;

/**
 * An HTTP proxy in front of a real ClickHouse that passes every request through until told to fail:
 * then it answers INSERTs (or everything) the way a struggling ClickHouse does — HTTP 503, a
 * memory-limit or too-many-parts error, or no answer at all. The real server stays the one that
 * stores the data; only the faults are made up.
 */
public final class FaultInjectingProxy implements AutoCloseable {
  /** A failure a healthy ClickHouse will not produce on demand. */
  public enum Fault {
    HTTP_500,
    HTTP_503,
    MEMORY_LIMIT_241,
    TOO_MANY_PARTS_252,
    NO_ANSWER
  }

  private static final Set<String> HOP_BY_HOP =
      Set.of("connection", "content-length", "transfer-encoding", "host", "keep-alive");

  private final MockWebServer server = new MockWebServer();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final URI target;
  private final AtomicReference<Fault> insertFault = new AtomicReference<>();
  private final AtomicReference<Fault> allFault = new AtomicReference<>();
  private final AtomicInteger faulted = new AtomicInteger();
  private final AtomicReference<Duration> insertDelay = new AtomicReference<>(Duration.ZERO);

  private FaultInjectingProxy(URI target) {
    this.target = target;
  }

  /** A proxy to {@code clickHouseUrl}, listening on a free local port. */
  public static FaultInjectingProxy to(String clickHouseUrl) {
    FaultInjectingProxy proxy = new FaultInjectingProxy(URI.create(clickHouseUrl));
    proxy.server.setDispatcher(proxy.new Forwarder());
    try {
      proxy.server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return proxy;
  }

  public String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** From now on every INSERT gets {@code fault}; other queries pass. */
  public void failInserts(Fault fault) {
    insertFault.set(fault);
  }

  /** From now on every request gets {@code fault}. */
  public void failEverything(Fault fault) {
    allFault.set(fault);
  }

  /**
   * From now on every INSERT is held this long before it is passed on: a ClickHouse slower than the
   * client's timeout, which still writes the rows after the client has given up.
   */
  public void slowInserts(Duration delay) {
    insertDelay.set(delay);
  }

  /** Pass everything through again, at once. */
  public void heal() {
    insertFault.set(null);
    allFault.set(null);
    insertDelay.set(Duration.ZERO);
  }

  /** How many requests were answered with a fault. */
  public int faultedRequests() {
    return faulted.get();
  }

  @Override
  public void close() throws IOException {
    server.shutdown();
  }

  private final class Forwarder extends Dispatcher {
    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String query = request.getRequestUrl().queryParameter("query");
      boolean insert = query != null && query.trim().toUpperCase(Locale.ROOT).startsWith("INSERT");
      Fault fault = allFault.get() != null ? allFault.get() : insert ? insertFault.get() : null;
      if (fault != null) {
        faulted.incrementAndGet();
        return answer(fault);
      }
      Duration delay = insert ? insertDelay.get() : Duration.ZERO;
      if (!delay.isZero()) {
        try {
          Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return forward(request);
    }

    private MockResponse answer(Fault fault) {
      return switch (fault) {
        case HTTP_500 -> new MockResponse().setResponseCode(500).setBody("Internal Server Error");
        case HTTP_503 -> new MockResponse().setResponseCode(503).setBody("Service Unavailable");
        case MEMORY_LIMIT_241 -> serverError(241, "MEMORY_LIMIT_EXCEEDED");
        case TOO_MANY_PARTS_252 -> serverError(252, "TOO_MANY_PARTS");
        case NO_ANSWER -> new MockResponse().setSocketPolicy(SocketPolicy.NO_RESPONSE);
      };
    }

    private MockResponse serverError(int code, String name) {
      return new MockResponse()
          .setResponseCode(500)
          .setHeader("X-ClickHouse-Exception-Code", Integer.toString(code))
          .setBody(
              "Code: " + code + ". DB::Exception: injected by the test proxy. (" + name + ")\n");
    }

    private MockResponse forward(RecordedRequest request) {
      HttpRequest.Builder out =
          HttpRequest.newBuilder(target.resolve(request.getPath())).timeout(Duration.ofSeconds(60));
      for (String name : request.getHeaders().names()) {
        if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
          for (String value : request.getHeaders().values(name)) {
            out.header(name, value);
          }
        }
      }
      byte[] body = request.getBody().readByteArray();
      out.method(request.getMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
      try {
        HttpResponse<byte[]> response =
            http.send(out.build(), HttpResponse.BodyHandlers.ofByteArray());
        MockResponse answer = new MockResponse().setResponseCode(response.statusCode());
        response
            .headers()
            .map()
            .forEach(
                (name, values) -> {
                  if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))
                      && !name.startsWith(":")) {
                    List<String> all = values;
                    all.forEach(value -> answer.addHeader(name, value));
                  }
                });
        return answer.setBody(new Buffer().write(response.body()));
      } catch (IOException e) {
        return new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AT_START);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AT_START);
      }
    }
  }
}
