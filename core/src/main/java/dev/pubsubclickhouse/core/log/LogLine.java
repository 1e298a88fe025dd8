package dev.pubsubclickhouse.core.log;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Map;

/**
 * One structured log line as Cloud Logging reads it from stdout: a JSON object with {@code
 * severity}, {@code message}, {@code time} and the fields. A failure adds {@code error} (its class
 * and message) and {@code stack_trace} (Java's own text of it), which Error Reporting groups by; an
 * ERROR line also carries Error Reporting's {@code @type}, so that it is reported even without a
 * stack trace. Callers pass only values that are safe to print, never a password.
 */
public final class LogLine {
  /** Marks a line as an error event for Error Reporting, whatever else it holds. */
  public static final String ERROR_EVENT_TYPE =
      "type.googleapis.com/google.devtools.clouderrorreporting.v1beta1.ReportedErrorEvent";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private LogLine() {}

  /**
   * @param failure appended as {@code error} and {@code stack_trace}, or null
   */
  public static String json(
      String severity, String message, Instant time, Map<String, ?> fields, Throwable failure) {
    StringWriter line = new StringWriter(256);
    try (JsonGenerator json = MAPPER.getFactory().createGenerator(line)) {
      json.writeStartObject();
      json.writeStringField("severity", severity);
      json.writeStringField("message", message);
      json.writeStringField("time", time.toString());
      if ("ERROR".equals(severity)) {
        json.writeStringField("@type", ERROR_EVENT_TYPE);
      }
      for (Map.Entry<String, ?> field : fields.entrySet()) {
        json.writeFieldName(field.getKey());
        MAPPER.writeValue(json, field.getValue());
      }
      if (failure != null) {
        json.writeStringField("error", failure.getClass().getName() + ": " + failure.getMessage());
        json.writeStringField("stack_trace", stackTrace(failure));
      }
      json.writeEndObject();
    } catch (IOException e) {
      return "{\"severity\":\"ERROR\",\"message\":\"log line failed\"}";
    }
    return line.toString();
  }

  /**
   * The same line as plain text for a person: the message, then {@code (field=value, ...)}; {@code
   * withSeverity} puts WARNING or ERROR (never INFO) before it. A failure is one more field, {@code
   * error}, without its stack trace.
   */
  public static String text(
      boolean withSeverity,
      String severity,
      String message,
      Map<String, ?> fields,
      Throwable failure) {
    StringBuilder line = new StringBuilder();
    if (withSeverity && !"INFO".equals(severity)) {
      line.append(severity).append(": ");
    }
    line.append(message);
    String separator = " (";
    for (Map.Entry<String, ?> field : fields.entrySet()) {
      line.append(separator).append(field.getKey()).append('=').append(field.getValue());
      separator = ", ";
    }
    if (failure != null) {
      line.append(separator)
          .append("error=")
          .append(failure.getClass().getName())
          .append(": ")
          .append(failure.getMessage());
      separator = ", ";
    }
    return separator.equals(" (") ? line.toString() : line.append(')').toString();
  }

  /** The failure as {@link Throwable#printStackTrace()} writes it, causes included. */
  static String stackTrace(Throwable failure) {
    StringWriter trace = new StringWriter(1024);
    failure.printStackTrace(new PrintWriter(trace));
    return trace.toString();
  }
}
