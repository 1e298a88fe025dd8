package dev.pubsubclickhouse.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The ways a user points a program at ClickHouse wrongly, each with the one line every program (the
 * push service, the backfill, replay) must say for it. {@link #settings} gives the CLICKHOUSE_*
 * variables of the mistake against a real server; close the result when done.
 */
public enum ClickHouseMistakes {
  /** The local pipeline user with a password that is not its own. */
  WRONG_PASSWORD {
    @Override
    public Setup settings(ClickHouseServer server) {
      return new Setup(server.url(), LocalClickHouse.PIPELINE_USER, "wrong-password", () -> {});
    }

    @Override
    public String line(String url) {
      return "cannot use ClickHouse at "
          + url
          + ": Authentication failed: wrong user or password (ClickHouse error 516); check"
          + " CLICKHOUSE_USER and CLICKHOUSE_PASSWORD (or CLICKHOUSE_PASSWORD_SECRET)";
    }
  },
  /** A port nothing listens on. */
  CLOSED_PORT {
    @Override
    public Setup settings(ClickHouseServer server) {
      return new Setup(
          "http://127.0.0.1:" + LocalClickHouse.freePort(),
          server.user(),
          server.password(),
          () -> {});
    }

    @Override
    public String line(String url) {
      return "ClickHouse at "
          + url
          + " does not answer: connection refused; check that it runs and that CLICKHOUSE_URL"
          + " names its HTTP port (8123, or 8443 with https://)";
    }
  },
  /** https:// to ClickHouse's plain HTTP port. */
  HTTPS_TO_A_PLAIN_PORT {
    @Override
    public Setup settings(ClickHouseServer server) {
      return new Setup(
          server.url().replaceFirst("^http://", "https://"),
          server.user(),
          server.password(),
          () -> {});
    }

    @Override
    public String line(String url) {
      return "cannot use ClickHouse at "
          + url
          + ": it answers in plain HTTP, not TLS; use http:// in CLICKHOUSE_URL, or the server's"
          + " HTTPS port (8443 by default)";
    }
  },
  /** https:// to a server whose self-signed certificate CLICKHOUSE_CA_CERT does not name. */
  UNTRUSTED_CERTIFICATE {
    @Override
    public Setup settings(ClickHouseServer server) {
      Path directory;
      try {
        directory = Files.createTempDirectory("untrusted-certificate");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      TlsTerminatingProxy proxy =
          TlsTerminatingProxy.start(SelfSignedCertificate.forLoopback(directory), server.url());
      return new Setup(
          proxy.url(),
          server.user(),
          server.password(),
          () -> {
            try (var files = Files.list(directory)) {
              proxy.close();
              for (Path file : files.toList()) {
                Files.delete(file);
              }
              Files.delete(directory);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }

    @Override
    public String line(String url) {
      return "cannot use ClickHouse at "
          + url
          + ": its TLS certificate is not trusted (no path to a trusted CA, or not for this host"
          + " name); set CLICKHOUSE_CA_CERT to the PEM of the CA that signed it (or of the"
          + " self-signed certificate), and check the host name in CLICKHOUSE_URL";
    }
  },
  /** Some other HTTP server, answering 404 to everything. */
  NOT_CLICKHOUSE {
    @Override
    public Setup settings(ClickHouseServer server) {
      HttpServer other;
      try {
        other = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      other.createContext(
          "/",
          exchange -> {
            byte[] page = "<html><body>Not Found</body></html>".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(404, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
          });
      other.start();
      return new Setup(
          "http://127.0.0.1:" + other.getAddress().getPort(),
          server.user(),
          server.password(),
          () -> other.stop(0));
    }

    @Override
    public String line(String url) {
      return "cannot use ClickHouse at "
          + url
          + ": it answered HTTP 404 without a ClickHouse error code: not ClickHouse, or a proxy"
          + " in front of it refused; check that CLICKHOUSE_URL names ClickHouse's HTTP port"
          + " (8123, or 8443 with https://)";
    }
  };

  /** The mistake's URL and credentials; closing it stops what it started. */
  public record Setup(String url, String user, String password, Runnable stop)
      implements AutoCloseable {
    /** CLICKHOUSE_URL, CLICKHOUSE_USER and CLICKHOUSE_PASSWORD. */
    public Map<String, String> environment() {
      return new ClickHouseServer(url, user, password).environment();
    }

    @Override
    public void close() {
      stop.run();
    }
  }

  /** Sets the mistake up beside {@code server}, the real local ClickHouse. */
  public abstract Setup settings(ClickHouseServer server);

  /** What every program says for this mistake at {@code url}: one line. */
  public abstract String line(String url);
}
