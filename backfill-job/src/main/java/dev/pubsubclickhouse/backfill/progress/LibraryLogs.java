package dev.pubsubclickhouse.backfill.progress;

import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Routes the libraries' logs into the job's own log lines: the Google clients and gRPC log through
 * java.util.logging, the ClickHouse client through SLF4J, which slf4j-jdk14 hands to
 * java.util.logging too. Each record becomes one line of the job's log ({@link JobLog}: JSON off a
 * terminal) with the logger's name; records below WARNING are left out, so the libraries speak up
 * only when something is wrong.
 */
public final class LibraryLogs {
  private LibraryLogs() {}

  /** Replaces java.util.logging's console handler by one that writes to {@code log}. */
  public static void install(JobLog log) {
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    root.setLevel(Level.WARNING);
    root.addHandler(new ToJobLog(log));
  }

  private static final class ToJobLog extends Handler {
    private final JobLog log;

    ToJobLog(JobLog log) {
      this.log = log;
      setLevel(Level.ALL);
    }

    @Override
    public void publish(LogRecord record) {
      if (!isLoggable(record)) {
        return;
      }
      String message = record.getMessage();
      if (record.getParameters() != null && record.getParameters().length > 0 && message != null) {
        try {
          message = java.text.MessageFormat.format(message, record.getParameters());
        } catch (IllegalArgumentException notAPattern) {
          // Keep the message as it came.
        }
      }
      Map<String, Object> fields = new java.util.LinkedHashMap<>();
      fields.put("logger", String.valueOf(record.getLoggerName()));
      if (record.getThrown() != null) {
        Throwable thrown = record.getThrown();
        fields.put("error", thrown.getClass().getName() + ": " + thrown.getMessage());
      }
      log.library(severity(record.getLevel()), message == null ? "" : message, fields);
    }

    private static String severity(Level level) {
      int value = level.intValue();
      if (value >= Level.SEVERE.intValue()) {
        return "ERROR";
      }
      if (value >= Level.WARNING.intValue()) {
        return "WARNING";
      }
      return value >= Level.INFO.intValue() ? "INFO" : "DEBUG";
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
