package dev.pubsubclickhouse.backfill;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Forwards TCP to a server until {@link #close()}, which cuts every connection: an outage. */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  TcpProxy(String host, int port) throws IOException {
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor =
        new Thread(
            () -> {
              while (!listener.isClosed()) {
                try {
                  Socket client = listener.accept();
                  Socket server = new Socket(host, port);
                  sockets.add(client);
                  sockets.add(server);
                  pump(client, server);
                  pump(server, client);
                } catch (IOException e) {
                  return;
                }
              }
            },
            "proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  String url() {
    return "http://127.0.0.1:" + listener.getLocalPort();
  }

  private static void pump(Socket from, Socket to) {
    Thread thread =
        new Thread(
            () -> {
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
              } catch (IOException e) {
                // The other side closed, or the proxy did.
              } finally {
                try {
                  to.close();
                } catch (IOException ignored) {
                  // already closed
                }
              }
            },
            "proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
  }
}
