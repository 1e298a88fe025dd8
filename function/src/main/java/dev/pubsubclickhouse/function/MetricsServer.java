package dev.pubsubclickhouse.function;

import dev.pubsubclickhouse.function.observability.Metrics;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * {@code GET /metrics} on a port of its own ({@code METRICS_PORT}), for a Prometheus sidecar that
 * scrapes the instance from inside: with the push token check on, the push port serves no metrics,
 * since whoever reaches it is not asked for a token there. Nothing else is served here.
 */
final class MetricsServer implements AutoCloseable {
  private final Server server;

  private MetricsServer(Server server) {
    this.server = server;
  }

  /**
   * Listens on {@code port}.
   *
   * @throws IllegalStateException naming METRICS_PORT when it cannot listen there
   */
  static MetricsServer start(int port, Metrics metrics) {
    Server server = new Server(new QueuedThreadPool(8, 2));
    ServerConnector connector = new ServerConnector(server, 1, 1);
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(new Scrape(metrics));
    try {
      server.start();
    } catch (Exception e) {
      Throwable why = e.getCause() == null ? e : e.getCause();
      try {
        server.stop();
      } catch (Exception ignored) {
        // Stopping a server that never started: nothing to release.
      }
      throw new IllegalStateException(
          PushParameters.METRICS_PORT.env()
              + ": cannot listen on port "
              + port
              + ": "
              + why.getMessage(),
          e);
    }
    return new MetricsServer(server);
  }

  /** The port it listens on. */
  int port() {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }

  private static final class Scrape extends Handler.Abstract {
    private final Metrics metrics;

    Scrape(Metrics metrics) {
      this.metrics = metrics;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      if (!"/metrics".equals(Request.getPathInContext(request))
          || !"GET".equals(request.getMethod())) {
        Response.writeError(request, response, callback, 404);
        return true;
      }
      response.setStatus(200);
      response
          .getHeaders()
          .put(HttpHeader.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
      Content.Sink.write(response, true, metrics.prometheusText(), callback);
      return true;
    }
  }
}
