package dev.pubsubclickhouse.core.log;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Every library's log records as our JSON lines: java.util.logging's own (gRPC and the Google
 * clients) and, through SLF4J's JUL provider, SLF4J's (client-v2, Jetty). Installed on the root
 * logger in place of the console handler, which would print multi-line text to stderr.
 */
public final class JsonLogHandler extends Handler {
  /** Where a record goes once it is a line's parts. */
  @FunctionalInterface
  public interface Lines {
    void write(String severity, String message, Map<String, ?> fields, Throwable failure);
  }

  private static final Formatter MESSAGES = new SimpleFormatter();

  private final Lines lines;

  public JsonLogHandler(Lines lines) {
    this.lines = lines;
  }

  /**
   * Makes this the only handler of the root logger, at INFO: below that, libraries' records are
   * dropped before they are formatted.
   */
  public static void install(Lines lines) {
    install(lines, Level.INFO);
  }

  /** The same at {@code minimum}. */
  public static void install(Lines lines, Level minimum) {
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    root.setLevel(minimum);
    root.addHandler(new JsonLogHandler(lines));
  }

  /** Cloud Logging's severity for a JUL level. */
  static String severity(Level level) {
    int value = level.intValue();
    if (value >= Level.SEVERE.intValue()) {
      return "ERROR";
    }
    if (value >= Level.WARNING.intValue()) {
      return "WARNING";
    }
    if (value >= Level.INFO.intValue()) {
      return "INFO";
    }
    return "DEBUG";
  }

  @Override
  public void publish(LogRecord record) {
    if (!isLoggable(record)) {
      return;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("logger", String.valueOf(record.getLoggerName()));
    String message;
    try {
      message = MESSAGES.formatMessage(record);
    } catch (RuntimeException unformattable) {
      message = String.valueOf(record.getMessage());
    }
    lines.write(severity(record.getLevel()), message, fields, record.getThrown());
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
