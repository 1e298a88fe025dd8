package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLServerSocket;

/**
 * HTTPS in front of a ClickHouse that speaks plain HTTP (the local engine serves no HTTPS): TLS
 * ends here with the given certificate, and the bytes go on to the real server unchanged, so the
 * client under test does a real TLS handshake and everything behind it is the real ClickHouse.
 */
public final class TlsTerminatingProxy implements AutoCloseable {
  private final SSLServerSocket server;
  private final URI target;
  private final AtomicInteger handshakes = new AtomicInteger();
  private volatile boolean closed;

  private TlsTerminatingProxy(SSLServerSocket server, URI target) {
    this.server = server;
    this.target = target;
  }

  /** Listens on a free loopback port with {@code certificate}, forwarding to {@code plainUrl}. */
  public static TlsTerminatingProxy start(SelfSignedCertificate certificate, String plainUrl) {
    try {
      SSLServerSocket server =
          (SSLServerSocket)
              certificate
                  .serverContext()
                  .getServerSocketFactory()
                  .createServerSocket(0, 64, InetAddress.getLoopbackAddress());
      TlsTerminatingProxy proxy = new TlsTerminatingProxy(server, URI.create(plainUrl));
      Thread acceptor = new Thread(proxy::accept, "tls-proxy-accept");
      acceptor.setDaemon(true);
      acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /** https://127.0.0.1:port */
  public String url() {
    return "https://127.0.0.1:" + port();
  }

  /** TLS handshakes that completed: a client that trusted the certificate. */
  public int handshakes() {
    return handshakes.get();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Thread connection = new Thread(() -> serve(client), "tls-proxy-connection");
        connection.setDaemon(true);
        connection.start();
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void serve(Socket client) {
    try (client;
        Socket upstream = new Socket(target.getHost(), target.getPort())) {
      ((javax.net.ssl.SSLSocket) client).startHandshake();
      handshakes.incrementAndGet();
      Thread back = new Thread(() -> pump(upstream, client), "tls-proxy-response");
      back.setDaemon(true);
      back.start();
      pump(client, upstream);
      back.join(60_000);
    } catch (IOException e) {
      // A failed handshake (an untrusting client) or a closed connection: nothing to forward.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void pump(Socket from, Socket to) {
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      byte[] buffer = new byte[64 * 1024];
      for (int read; (read = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, read);
        out.flush();
      }
      to.shutdownOutput();
    } catch (IOException | RuntimeException e) {
      try {
        to.close();
        from.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
  }
}
