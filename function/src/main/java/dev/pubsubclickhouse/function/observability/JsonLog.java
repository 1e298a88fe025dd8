package dev.pubsubclickhouse.function.observability;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Map;

/**
 * Structured log lines on stdout that Cloud Logging reads as JSON: {@code severity}, {@code
 * message}, {@code time} and any fields. Nothing here logs per message at INFO; callers pass only
 * values that are safe to print (never a password).
 */
public final class JsonLog {
  private static final ObjectMapper MAPPER = new ObjectMapper();
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
    StringWriter line = new StringWriter(256);
    try (JsonGenerator json = MAPPER.getFactory().createGenerator(line)) {
      json.writeStartObject();
      json.writeStringField("severity", severity);
      json.writeStringField("message", message);
      json.writeStringField("time", Instant.now().toString());
      for (Map.Entry<String, ?> field : fields.entrySet()) {
        json.writeFieldName(field.getKey());
        MAPPER.writeValue(json, field.getValue());
      }
      if (failure != null) {
        json.writeStringField("error", failure.getClass().getName() + ": " + failure.getMessage());
      }
      json.writeEndObject();
    } catch (IOException e) {
      line = new StringWriter().append("{\"severity\":\"ERROR\",\"message\":\"log line failed\"}");
    }
    PrintStream target = out;
    synchronized (target) {
      target.println(line);
    }
  }
}
