package dev.pubsubclickhouse.core.insert;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.hc.core5.concurrent.Cancellable;

/**
 * Cancels HTTP requests that outlive their deadline, the only timeout of an exchange once it is
 * connected: a blocking socket write has none (a large INSERT to a server that stopped reading
 * would wait for the kernel to give up, many minutes), and a timed read on a virtual thread arms a
 * timer every time. One daemon thread looks at the open requests ten times a second; opening and
 * closing a request only touches a concurrent map, so the request path pays no thread hand-off.
 */
final class RequestDeadlines {
  static final RequestDeadlines SHARED = new RequestDeadlines(Duration.ofMillis(100));

  private final long tickNanos;
  private final Map<Watch, Boolean> open = new ConcurrentHashMap<>();
  private Thread watcher; // guarded by this

  RequestDeadlines(Duration tick) {
    this.tickNanos = tick.toNanos();
  }

  /** A request being watched; {@link #close} when it is answered or failed. */
  final class Watch implements AutoCloseable {
    private final Cancellable request;
    private final long deadlineNanos;
    private volatile boolean expired;

    private Watch(Cancellable request, long deadlineNanos) {
      this.request = request;
      this.deadlineNanos = deadlineNanos;
    }

    /** Whether the deadline passed and the request was cancelled. */
    boolean expired() {
      return expired;
    }

    @Override
    public void close() {
      open.remove(this);
    }
  }

  /** Cancels {@code request} if it is still open {@code timeout} from now. */
  Watch watch(Cancellable request, Duration timeout) {
    ensureWatching();
    Watch watch = new Watch(request, System.nanoTime() + timeout.toNanos());
    open.put(watch, Boolean.TRUE);
    return watch;
  }

  /** Requests watched and not yet closed or cancelled. */
  int open() {
    return open.size();
  }

  /** Cancels every open request whose deadline has passed at {@code now}. */
  void cancelExpired(long now) {
    for (Watch watch : open.keySet()) {
      if (now - watch.deadlineNanos >= 0 && open.remove(watch) != null) {
        watch.expired = true;
        try {
          watch.request.cancel(); // closes the connection: the blocked read or write fails
        } catch (RuntimeException e) {
          // the request is ending on its own; the others are still watched
        }
      }
    }
  }

  /** Starts the watching thread, again if it ever ended. */
  private synchronized void ensureWatching() {
    if (watcher != null && watcher.isAlive()) {
      return;
    }
    Thread thread = new Thread(this::watchLoop, "clickhouse-request-deadlines");
    thread.setDaemon(true);
    thread.start();
    watcher = thread;
  }

  private void watchLoop() {
    while (true) {
      try {
        TimeUnit.NANOSECONDS.sleep(tickNanos);
        cancelExpired(System.nanoTime());
      } catch (InterruptedException e) {
        // nothing stops the watch but the end of the process
      } catch (RuntimeException | Error e) {
        // the next tick tries again; a request path that finds this thread gone starts another
      }
    }
  }
}
