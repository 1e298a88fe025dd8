package dev.pubsubclickhouse.function;

import dev.pubsubclickhouse.core.log.JsonLog;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Opens what the service needs from ClickHouse (the target table, the dead-letter table) once they
 * answer: tries at once, then again with backoff while they do not, and logs each new reason once.
 * Until it succeeds the service listens and answers 503 with the reason, so a service deployed
 * before ClickHouse or its tables comes up by itself, with no restart.
 *
 * @param <T> what opening yields
 */
final class Readiness<T> {
  static final Duration FIRST_RETRY = Duration.ofMillis(500);

  /** Retries never wait longer than this: a table created now is used within this long. */
  static final Duration MAX_RETRY = Duration.ofSeconds(10);

  private static final String STARTING = "starting: ClickHouse not tried yet";

  private final Callable<T> opening;
  private final Function<Exception, String> reasonOf;
  private final Consumer<T> whenOpen;
  private final ScheduledExecutorService retries;
  private final CountDownLatch opened = new CountDownLatch(1);
  private volatile String reason = STARTING;
  private volatile boolean stopped;
  private Duration nextWait = FIRST_RETRY;

  /**
   * @param opening opens what is needed, or throws why it cannot yet
   * @param reasonOf one line naming what is missing, from what {@code opening} threw
   * @param whenOpen takes what was opened, once, also when {@link #stop} came while opening: then
   *     it must release it
   */
  Readiness(Callable<T> opening, Function<Exception, String> reasonOf, Consumer<T> whenOpen) {
    this.opening = opening;
    this.reasonOf = reasonOf;
    this.whenOpen = whenOpen;
    this.retries =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "clickhouse-readiness");
              thread.setDaemon(true);
              return thread;
            });
  }

  /** Makes the first attempt on its own thread and returns at once. */
  void start() {
    retries.execute(this::attempt);
  }

  /** Empty once open; else why not yet. */
  Optional<String> notReadyReason() {
    return opened.getCount() == 0 ? Optional.empty() : Optional.of(reason);
  }

  /** Waits up to {@code timeout} for it to open; true when it did. */
  boolean awaitOpen(Duration timeout) throws InterruptedException {
    return opened.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** Makes no further attempt (shutdown). */
  void stop() {
    stopped = true;
    retries.shutdownNow();
  }

  private void attempt() {
    if (stopped) {
      return;
    }
    T value;
    try {
      value = opening.call();
    } catch (Exception e) {
      notYet(reasonOf.apply(e));
      return;
    } catch (Error e) {
      // The executor would keep an Error in a future nobody reads: the service would say
      // "starting" forever and log nothing. A class from another build shows up here.
      notYet(reasonOf.apply(new IllegalStateException(e.toString(), e)));
      return;
    }
    // Handed over even when stopped while opening: what was opened may hold threads, and whenOpen
    // is where they are ended.
    whenOpen.accept(value);
    opened.countDown();
    retries.shutdown();
  }

  private void notYet(String why) {
    if (!why.equals(reason)) {
      JsonLog.warning(
          "not ready; answering 503 until ClickHouse and the tables answer",
          Map.of("reason", why, "retryEveryMaxMs", MAX_RETRY.toMillis()));
    }
    reason = why;
    try {
      retries.schedule(this::attempt, nextWait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stoppedMeanwhile) {
      return;
    }
    Duration doubled = nextWait.multipliedBy(2);
    nextWait = doubled.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : doubled;
  }
}
