package dev.pubsubclickhouse.function;

import dev.pubsubclickhouse.core.log.JsonLog;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The service's periodic tasks on one daemon thread. A task that fails is logged and runs again at
 * its next interval: a scheduled executor would cancel it for good, and the task that answers 503
 * to requests past their deadline must outlive an OutOfMemoryError thrown into it by a large
 * message.
 */
final class Housekeeping implements AutoCloseable {
  private final ScheduledExecutorService executor =
      Executors.newSingleThreadScheduledExecutor(
          task -> {
            Thread thread = new Thread(task, "housekeeping");
            thread.setDaemon(true);
            return thread;
          });

  /** Runs {@code task} every {@code interval}, the first time one interval from now. */
  void every(Duration interval, String name, Runnable task) {
    long millis = interval.toMillis();
    executor.scheduleAtFixedRate(
        () -> {
          try {
            task.run();
          } catch (Throwable e) {
            logged(name, e);
          }
        },
        millis,
        millis,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Logs the failure, if the heap lets it: after an OutOfMemoryError the log line can throw one
   * too, which must not reach the executor either.
   */
  private static void logged(String name, Throwable failure) {
    try {
      JsonLog.error(name + " failed; it runs again at its next interval", Map.of(), failure);
    } catch (Throwable ignored) {
      // the task still runs at its next interval; the failure shows in the next lines it logs
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
