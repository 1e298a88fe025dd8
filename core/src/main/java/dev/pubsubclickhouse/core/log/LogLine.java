package dev.pubsubclickhouse.core.log;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Map;

/**
 * One structured log line as Cloud Logging reads it from stdout: a JSON object with {@code
 * severity}, {@code message}, {@code time} and the fields. Callers pass only values that are safe
 * to print, never a password.
 */
public final class LogLine {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private LogLine() {}

  /**
   * @param failure appended as {@code error} (class and message), or null
   */
  public static String json(
      String severity, String message, Instant time, Map<String, ?> fields, Throwable failure) {
    StringWriter line = new StringWriter(256);
    try (JsonGenerator json = MAPPER.getFactory().createGenerator(line)) {
      json.writeStartObject();
      json.writeStringField("severity", severity);
      json.writeStringField("message", message);
      json.writeStringField("time", time.toString());
      for (Map.Entry<String, ?> field : fields.entrySet()) {
        json.writeFieldName(field.getKey());
        MAPPER.writeValue(json, field.getValue());
      }
      if (failure != null) {
        json.writeStringField("error", failure.getClass().getName() + ": " + failure.getMessage());
      }
      json.writeEndObject();
    } catch (IOException e) {
      return "{\"severity\":\"ERROR\",\"message\":\"log line failed\"}";
    }
    return line.toString();
  }
}
