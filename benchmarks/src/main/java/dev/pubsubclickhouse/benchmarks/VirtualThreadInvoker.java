package dev.pubsubclickhouse.benchmarks;

import com.google.cloud.functions.invoker.HttpFunctionExecutor;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The Functions Framework invoker's server as {@code Invoker.startServer} builds it (Jetty 12, a
 * QueuedThreadPool of 1024, one ServerConnector, the framework's own {@link HttpFunctionExecutor}),
 * with one change: requests run on virtual threads (JDK 21+). A function that blocks while it waits
 * for its batch then parks a virtual thread instead of an OS thread. This is the measured basis of
 * a proposal for {@code function/Main.java}; the function classes come from the classpath:
 *
 * <pre>
 * java -cp function/target/function.jar:benchmarks/target/benchmarks.jar \
 *   dev.pubsubclickhouse.benchmarks.VirtualThreadInvoker PORT dev.pubsubclickhouse.function.PushFunction
 * </pre>
 */
public final class VirtualThreadInvoker {
  private VirtualThreadInvoker() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    Class<?> function = Class.forName(args[1]);
    QueuedThreadPool pool = new QueuedThreadPool(1024);
    // Executors.newVirtualThreadPerTaskExecutor() exists from JDK 21; this module builds for 17.
    pool.setVirtualThreadsExecutor(
        (Executor) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null));
    Server server = new Server(pool);
    ServerConnector connector = new ServerConnector(server);
    connector.setPort(port);
    connector.setReuseAddress(true);
    server.addConnector(connector);
    server.setHandler(HttpFunctionExecutor.forClass(function));
    server.start();
    System.out.println("Serving " + function.getName() + " on virtual threads, port " + port);
    server.join();
  }
}
