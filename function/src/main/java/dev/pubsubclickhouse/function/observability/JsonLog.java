package dev.pubsubclickhouse.function.observability;

import dev.pubsubclickhouse.core.log.LogLine;
import java.io.PrintStream;
import java.time.Instant;
import java.util.Map;

/**
 * Structured log lines on stdout that Cloud Logging reads as JSON: {@code severity}, {@code
 * message}, {@code time} and any fields. Nothing here logs per message at INFO; callers pass only
 * values that are safe to print (never a password).
 */
public final class JsonLog {
  private static volatile PrintStream out = System.out;

  private JsonLog() {}

  /** Where lines go; tests capture them. */
  public static void redirect(PrintStream stream) {
    out = stream;
  }

  public static void info(String message, Map<String, ?> fields) {
    write("INFO", message, fields, null);
  }

  public static void warning(String message, Map<String, ?> fields) {
    write("WARNING", message, fields, null);
  }

  public static void error(String message, Map<String, ?> fields, Throwable failure) {
    write("ERROR", message, fields, failure);
  }

  private static void write(
      String severity, String message, Map<String, ?> fields, Throwable failure) {
    String line = LogLine.json(severity, message, Instant.now(), fields, failure);
    PrintStream target = out;
    synchronized (target) {
      target.println(line);
    }
  }
}
