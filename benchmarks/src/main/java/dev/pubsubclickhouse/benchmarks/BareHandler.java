package dev.pubsubclickhouse.benchmarks;

import com.google.cloud.functions.HttpFunction;
import com.google.cloud.functions.HttpRequest;
import com.google.cloud.functions.HttpResponse;
import com.google.cloud.functions.invoker.runner.Invoker;
import java.io.IOException;
import java.io.InputStream;

/**
 * The bare-handler ceiling: the same Functions Framework invoker, reading the push body and
 * answering 204 without any work. {@code java -cp benchmarks.jar ...BareHandler PORT}.
 */
public final class BareHandler implements HttpFunction {
  @Override
  public void service(HttpRequest request, HttpResponse response) throws IOException {
    try (InputStream body = request.getInputStream()) {
      body.transferTo(OutputStreamSink.INSTANCE);
    }
    response.setStatusCode(204);
  }

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8090;
    new Invoker(port, BareHandler.class.getName(), "http", BareHandler.class.getClassLoader())
        .startServer();
  }

  /** Discards bytes. */
  private static final class OutputStreamSink extends java.io.OutputStream {
    static final OutputStreamSink INSTANCE = new OutputStreamSink();

    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
  }
}
