package dev.pubsubclickhouse.function;

import com.google.cloud.functions.invoker.HttpFunctionExecutor;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.eclipse.jetty.util.thread.VirtualThreadPool;

/**
 * The HTTP server: the Functions Framework's own {@link HttpFunctionExecutor} running {@link
 * PushFunction} on Jetty, built as the framework's {@code Invoker.startServer} builds it (one
 * connector, error pages without a body), with two differences: requests wait on virtual threads
 * where the JDK has them, and every request counts as active for the service's shutdown until its
 * answer is on the wire.
 *
 * <p>A push request waits for the INSERT that carries its rows. On an OS thread that wait costs
 * several context switches per request, and at a few hundred concurrent requests they are most of
 * the service's CPU; a waiting virtual thread only parks. Which threads, by JDK:
 *
 * <ul>
 *   <li>25 and later on one CPU (the deployed 1 vCPU, where the virtual threads have one carrier):
 *       Jetty's selector and acceptor run on virtual threads too ({@link VirtualThreadPool}). With
 *       the selector on an OS thread of its own, each request crossed between that thread and the
 *       carrier on the one CPU: 1.6 to 2.0 context switches a message at 256 concurrent pushes
 *       against 0.05 with the selector on the carrier, which gives about a sixth more messages a
 *       second at a sixth less CPU a message (docs/performance.md, "Threads on one CPU"). JDK 25's
 *       selector parks a virtual thread instead of holding its carrier in the system call. With two
 *       CPUs the selector's own thread runs beside the carriers: the same throughput either way,
 *       and under a flood of pushes far beyond admission the selector on a virtual thread waits
 *       behind the requests' work (429s answered 2 to 3 times slower at the 99th percentile in
 *       OverloadIT), so there it keeps its OS thread.
 *   <li>21 and later otherwise: requests on virtual threads, the selector and acceptor on a pool of
 *       OS threads (Jetty's {@link QueuedThreadPool} with a virtual-thread executor).
 *   <li>17 to 20: a pool of up to 1024 OS threads, as under the stock invoker.
 * </ul>
 */
final class PushServer implements AutoCloseable {
  private static final int MAX_PLATFORM_THREADS = 1024;
  private static final int UNCAPPED = 0;
  private static final int ACCEPT_QUEUE = 1024;

  private final Server server;

  private PushServer(Server server) {
    this.server = server;
  }

  /**
   * Listens on {@code port} (0 for any free port) and serves {@link PushFunction} with {@code
   * service} (installed as the process's service, the one the framework's {@link PushFunction}
   * uses), telling it when each request arrives and when its answer has been sent.
   */
  static PushServer start(int port, PushService service) throws Exception {
    PushService.install(service);
    ThreadPool pool =
        threadPool(Runtime.version().feature(), Runtime.getRuntime().availableProcessors());
    Server server = new Server(pool);
    server.setErrorHandler(new BodylessErrorHandler());
    ServerConnector connector = new ServerConnector(server);
    connector.setPort(port);
    connector.setReuseAddress(true);
    // Connections that arrive together wait in the kernel until accepted; with the JVM's default
    // backlog of 50, a burst of new connections (Pub/Sub opening its window, a load balancer's
    // pool) on a busy instance finds the queue full and some are reset.
    connector.setAcceptQueueSize(ACCEPT_QUEUE);
    server.addConnector(connector);
    server.setHandler(
        new ActiveUntilAnswered(HttpFunctionExecutor.forClass(PushFunction.class), service));
    server.start();
    return new PushServer(server);
  }

  /** The port it listens on. */
  int port() {
    return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
  }

  /** Whether requests run on virtual threads. */
  boolean onVirtualThreads() {
    ThreadPool pool = server.getThreadPool();
    return pool instanceof VirtualThreadPool
        || ((QueuedThreadPool) pool).getVirtualThreadsExecutor() != null;
  }

  /** Whether Jetty's selector and acceptor run on virtual threads too. */
  boolean selectorOnVirtualThread() {
    return server.getThreadPool() instanceof VirtualThreadPool;
  }

  /** The server's threads on JDK {@code feature} with {@code cpus} CPUs (see the class comment). */
  static ThreadPool threadPool(int feature, int cpus) {
    if (feature >= 25 && cpus == 1) {
      // Uncapped (Jetty's default cap is 200): beyond a cap the connector's own tasks wait for a
      // thread that only an answered request frees, so pushes in flight that would fill the
      // batch could not even be read. MAX_PENDING_MESSAGES bounds what the service holds.
      return new VirtualThreadPool(UNCAPPED);
    }
    QueuedThreadPool pool = new QueuedThreadPool(MAX_PLATFORM_THREADS);
    if (feature >= 21) {
      pool.setVirtualThreadsExecutor(VirtualThreads.getDefaultVirtualThreadsExecutor());
    }
    return pool;
  }

  /** Blocks until the server stops. */
  void join() throws InterruptedException {
    server.join();
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }

  /**
   * Counts a request as active from its arrival until Jetty has finished its exchange, the answer
   * written or the connection failed: shutdown waits for that, so that the process does not exit
   * between a message stored and the 2xx saying so (Pub/Sub would deliver it again).
   */
  private static final class ActiveUntilAnswered extends Handler.Wrapper {
    private final PushService service;

    ActiveUntilAnswered(Handler handler, PushService service) {
      super(handler);
      this.service = service;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      Request.addCompletionListener(request, failure -> service.requestEnded());
      service.requestStarted();
      return super.handle(request, response, callback);
    }
  }

  /** Jetty's own errors (a malformed request line, headers too large) as a status, no page. */
  private static final class BodylessErrorHandler extends ErrorHandler {
    @Override
    protected void generateResponse(
        Request request,
        Response response,
        int code,
        String message,
        Throwable cause,
        Callback callback) {
      callback.succeeded();
    }
  }
}
