package dev.pubsubclickhouse.function;

import com.google.cloud.functions.HttpRequest;
import com.google.cloud.functions.HttpResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * A request's body: read once for a push, or else settled before the answer so that the connection
 * can carry the next request. A body left unread makes Jetty close the connection after the answer
 * without saying so, and the client's next request on it fails ("header parser received no bytes"):
 * one to five in 200 requests that followed a refused one, before this class.
 */
final class RequestBody {
  /** A body up to this long that the answer does not need is read and dropped. */
  static final int DRAIN_LIMIT = 64 * 1024;

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
        closeConnection = body.length > limit;
        return closeConnection ? null : body;
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
   * Before the answer: reads and drops a body the answer did not need, up to {@link #DRAIN_LIMIT};
   * for a longer one (or one refused as too large), the answer says {@code Connection: close}.
   */
  void settle(HttpResponse response) throws IOException {
    if (!settled) {
      settled = true;
      closeConnection = !drained();
    }
    if (closeConnection) {
      response.appendHeader("Connection", "close");
    }
  }

  /** True when the body was empty or short enough to read to its end. */
  private boolean drained() throws IOException {
    long declared = request.getContentLength();
    if (declared > DRAIN_LIMIT) {
      return false;
    }
    if (declared <= 0 && request.getFirstHeader("Transfer-Encoding").isEmpty()) {
      return true; // no body
    }
    byte[] buffer = new byte[2048];
    long total = 0;
    try (InputStream in = request.getInputStream()) {
      for (int n; (n = in.read(buffer)) != -1; ) {
        total += n;
        if (total > DRAIN_LIMIT) {
          return false;
        }
      }
    }
    return true;
  }
}
