package dev.pubsubclickhouse.function;

import com.google.cloud.functions.HttpRequest;
import com.google.cloud.functions.HttpResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * A request's body: read once for a push, or else settled before the answer so that the connection
 * can carry the next request. A body left unread makes Jetty close the connection after the answer
 * without saying so, and the client's next request on it fails ("header parser received no bytes").
 */
final class RequestBody {
  /** A body up to this long that the answer does not need is read and dropped. */
  static final int DRAIN_LIMIT = 64 * 1024;

  /**
   * Before a 413, a body is read up to Cloud Run's largest HTTP/1 request, 32 MiB: closing on
   * unread data resets the connection, which can destroy the answer on its way, and a sender that
   * does not see its 413 takes the failure for a transient one and sends the same body again.
   */
  static final long TOO_LARGE_DRAIN_LIMIT = 32L << 20;

  private final HttpRequest request;
  private boolean settled;
  private boolean closeConnection;

  RequestBody(HttpRequest request) {
    this.request = request;
  }

  /**
   * The whole body, or null when it is longer than {@code limit} (the caller has refused a longer
   * declared length already). A declared length sizes the array exactly; a body of unknown length
   * is read in 16 KiB chunks, garbage a 300-byte push should not make (it was two thirds of the
   * service's allocation).
   */
  byte[] read(int limit) throws IOException {
    settled = true;
    long declared = request.getContentLength();
    try (InputStream in = request.getInputStream()) {
      if (declared < 0) {
        byte[] body = in.readNBytes(limit + 1);
        if (body.length <= limit) {
          return body;
        }
        closeConnection = !drain(in, TOO_LARGE_DRAIN_LIMIT - body.length);
        return null;
      }
      byte[] body = new byte[(int) declared];
      int read = in.readNBytes(body, 0, body.length);
      if (in.read() != -1) { // longer than it declared; not left half read
        closeConnection = true;
        return null;
      }
      return read == body.length ? body : Arrays.copyOf(body, read);
    }
  }

  /**
   * Before the answer: reads and drops a body the answer did not need, up to {@link #DRAIN_LIMIT}
   * ({@link #TOO_LARGE_DRAIN_LIMIT} before a 413); for a longer one the answer says {@code
   * Connection: close}.
   */
  void settle(HttpResponse response, boolean tooLarge) throws IOException {
    if (!settled) {
      settled = true;
      closeConnection = !drained(tooLarge ? TOO_LARGE_DRAIN_LIMIT : DRAIN_LIMIT);
    }
    if (closeConnection) {
      response.appendHeader("Connection", "close");
    }
  }

  /** True when the body was empty or no longer than {@code limit}, and is now read to its end. */
  private boolean drained(long limit) throws IOException {
    long declared = request.getContentLength();
    if (declared > limit) {
      return false;
    }
    if (declared <= 0 && request.getFirstHeader("Transfer-Encoding").isEmpty()) {
      return true; // no body
    }
    try (InputStream in = request.getInputStream()) {
      return drain(in, limit);
    }
  }

  /**
   * Reads {@code in} to its end, or stops after {@code limit} bytes: true when it reached the end.
   */
  private static boolean drain(InputStream in, long limit) throws IOException {
    byte[] buffer = new byte[8192];
    long total = 0;
    for (int n; (n = in.read(buffer)) != -1; ) {
      total += n;
      if (total > limit) {
        return false;
      }
    }
    return true;
  }
}
