package dev.pubsubclickhouse.backfill.progress;

import dev.pubsubclickhouse.core.log.JsonLog;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts rows and reports: on a terminal a progress bar (rows, rows/s, ETA when the total is
 * known), redrawn every second; elsewhere a JSON progress line every interval.
 */
public final class Progress implements AutoCloseable {
  private final AtomicLong read = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong deadLettered = new AtomicLong();
  private final AtomicLong pages = new AtomicLong();
  private final AtomicLong skipped = new AtomicLong();
  private final AtomicLong recovered = new AtomicLong();
  private final long total;
  private final long startNanos = System.nanoTime();
  private final PrintStream bar;
  private ScheduledExecutorService reporter;

  /**
   * @param total rows this task is to read (-1 when unknown)
   * @param bar where the bar is drawn on a terminal (stderr), or null for log lines
   */
  public Progress(long total, PrintStream bar) {
    this.total = total;
    this.bar = bar;
  }

  /** Starts reporting every {@code intervalSeconds} (every second for a bar). */
  public void start(long intervalSeconds) {
    reporter =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "progress");
              thread.setDaemon(true);
              return thread;
            });
    long every = bar != null ? 1 : intervalSeconds;
    reporter.scheduleAtFixedRate(this::report, every, every, TimeUnit.SECONDS);
  }

  public void pageRead(long rows) {
    read.addAndGet(rows);
  }

  public void pageDone(long writtenRows, long rejectedRows, long deadLetteredRows) {
    pages.incrementAndGet();
    written.addAndGet(writtenRows);
    rejected.addAndGet(rejectedRows);
    deadLettered.addAndGet(deadLetteredRows);
  }

  /** Rows an earlier run read and the table refused, written now (they count as written too). */
  public void recovered(long rows) {
    written.addAndGet(rows);
    recovered.addAndGet(rows);
  }

  /** Rows counted as already done by an earlier run (resume). */
  public void skipped(long rows) {
    skipped.addAndGet(rows);
  }

  public long read() {
    return read.get();
  }

  public long written() {
    return written.get();
  }

  public long rejected() {
    return rejected.get();
  }

  public long deadLettered() {
    return deadLettered.get();
  }

  public long skippedRows() {
    return skipped.get();
  }

  public double seconds() {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  /** The fields of a progress line and of the summary. */
  public Map<String, Object> fields() {
    double seconds = seconds();
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("read", read.get());
    fields.put("written", written.get());
    fields.put("rejected", rejected.get());
    fields.put("deadLettered", deadLettered.get());
    if (recovered.get() > 0) {
      fields.put("recovered", recovered.get());
    }
    if (skipped.get() > 0) {
      fields.put("skippedAsDone", skipped.get());
    }
    if (total >= 0) {
      fields.put("total", total);
    }
    fields.put("rowsPerSecond", seconds > 0 ? Math.round(done() / seconds) : 0);
    fields.put("seconds", Math.round(seconds * 10) / 10.0);
    etaSeconds().ifPresent(eta -> fields.put("etaSeconds", eta));
    return fields;
  }

  private long done() {
    return written.get() + rejected.get();
  }

  private java.util.OptionalLong etaSeconds() {
    long done = done();
    double seconds = seconds();
    if (total < 0 || done == 0 || seconds <= 0) {
      return java.util.OptionalLong.empty();
    }
    double rate = done / seconds;
    return java.util.OptionalLong.of(Math.round(Math.max(0, total - skipped.get() - done) / rate));
  }

  void report() {
    if (bar == null) {
      JsonLog.info("progress", fields());
      return;
    }
    bar.print("\r" + barLine() + "\u001b[K");
    bar.flush();
  }

  String barLine() {
    long done = done() + skipped.get();
    double seconds = seconds();
    long rate = seconds > 0 ? Math.round(done() / seconds) : 0;
    StringBuilder line = new StringBuilder();
    if (total > 0) {
      int width = 30;
      int filled = (int) Math.min(width, done * width / total);
      line.append('[')
          .append("#".repeat(filled))
          .append(" ".repeat(width - filled))
          .append("] ")
          .append(String.format("%5.1f%% ", 100.0 * done / total));
    }
    line.append(String.format("%,d", done));
    if (total >= 0) {
      line.append(String.format("/%,d", total));
    }
    line.append(String.format(" rows  %,d rows/s", rate));
    etaSeconds().ifPresent(eta -> line.append(String.format("  ETA %d:%02d", eta / 60, eta % 60)));
    if (rejected.get() > 0) {
      line.append(String.format("  %,d rejected", rejected.get()));
    }
    return line.toString();
  }

  @Override
  public void close() {
    if (reporter != null) {
      reporter.shutdownNow();
    }
    if (bar != null) {
      bar.print("\r" + barLine() + "\u001b[K\n");
      bar.flush();
    }
  }
}
