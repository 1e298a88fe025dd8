package dev.pubsubclickhouse.backfill.progress;

import dev.pubsubclickhouse.core.log.LogLine;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;

/**
 * The job's log. Off a terminal (Cloud Run) every line is one JSON object that Cloud Logging reads
 * ({@code severity}, {@code message}, {@code time}, fields); on a terminal, plain text. Callers
 * pass only values that are safe to print: never a password.
 */
public final class JobLog {
  private final PrintStream out;
  private final boolean terminal;
  private final Clock clock;

  public JobLog(PrintStream out, boolean terminal, Clock clock) {
    this.out = out;
    this.terminal = terminal;
    this.clock = clock;
  }

  public boolean terminal() {
    return terminal;
  }

  public void info(String message, Map<String, ?> fields) {
    write("INFO", message, fields);
  }

  public void warning(String message, Map<String, ?> fields) {
    write("WARNING", message, fields);
  }

  public void error(String message, Map<String, ?> fields) {
    write("ERROR", message, fields);
  }

  /** A library's record (see {@link LibraryLogs}), at its own severity. */
  public void library(String severity, String message, Map<String, ?> fields) {
    write(severity, message, fields);
  }

  /** Text as it is (the column plan, --help): never JSON. */
  public void text(String text) {
    synchronized (out) {
      out.print(text);
      out.flush();
    }
  }

  private void write(String severity, String message, Map<String, ?> fields) {
    String line = terminal ? plain(severity, message, fields) : json(severity, message, fields);
    synchronized (out) {
      out.println(line);
      out.flush();
    }
  }

  private static String plain(String severity, String message, Map<String, ?> fields) {
    StringBuilder line = new StringBuilder();
    if (!"INFO".equals(severity)) {
      line.append(severity).append(": ");
    }
    line.append(message);
    String separator = " (";
    for (Map.Entry<String, ?> field : fields.entrySet()) {
      line.append(separator).append(field.getKey()).append('=').append(field.getValue());
      separator = ", ";
    }
    return fields.isEmpty() ? line.toString() : line.append(')').toString();
  }

  private String json(String severity, String message, Map<String, ?> fields) {
    return LogLine.json(severity, message, clock.instant(), fields, null);
  }
}
