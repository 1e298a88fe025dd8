package dev.pubsubclickhouse.core.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.PrintStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Structured log lines on stdout that Cloud Logging reads as JSON: {@code severity}, {@code
 * message}, {@code time} and any fields, with a stack trace for a failure (see {@link LogLine}).
 * Libraries' records come here too ({@link #captureLibraryLogs()}), and a line written while a
 * request is served carries the request's trace. Nothing here logs per message at INFO; callers
 * pass only values that are safe to print, and a registered secret is masked wherever it appears.
 */
public final class JsonLog {
  static final String TRACE = "logging.googleapis.com/trace";
  static final String SPAN_ID = "logging.googleapis.com/spanId";
  static final String TRACE_SAMPLED = "logging.googleapis.com/trace_sampled";
  static final String MASK = "[redacted]";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ThreadLocal<RequestTrace> REQUEST_TRACE = new ThreadLocal<>();
  private static final Set<String> SECRETS = ConcurrentHashMap.newKeySet();
  private static volatile PrintStream out = System.out;
  private static volatile String traceProject;

  /**
   * client-v2 warns about every failed request ("Failed to connect", "Retrying.", "Query request
   * failed"), three lines each time ClickHouse is down; the service reports the same failures
   * itself, once per change and classified. Held here: JUL keeps loggers only weakly, and a level
   * set on a collected logger is lost.
   */
  private static final List<Logger> QUIETED =
      List.of(
          Logger.getLogger("com.clickhouse.client.api.Client"),
          Logger.getLogger("com.clickhouse.client.api.internal.HttpAPIClientHelper"));

  private JsonLog() {}

  /** Where lines go; tests capture them. */
  public static void redirect(PrintStream stream) {
    out = stream;
  }

  /**
   * From now on every library's log records (java.util.logging, and SLF4J through its JUL provider)
   * are written here as lines, instead of as text on stderr.
   */
  public static void captureLibraryLogs() {
    JsonLogHandler.install(JsonLog::write);
    QUIETED.forEach(logger -> logger.setLevel(Level.SEVERE));
  }

  /** The Google Cloud project whose Cloud Trace the request traces are in; null for none. */
  public static void traceProject(String project) {
    traceProject = project;
  }

  /** Masks {@code secret} in every line from now on, whoever wrote it. */
  public static void neverPrint(String secret) {
    if (secret == null || secret.isEmpty()) {
      return;
    }
    SECRETS.add(secret);
    try {
      String quoted = JSON.writeValueAsString(secret);
      SECRETS.add(quoted.substring(1, quoted.length() - 1)); // as it appears inside a JSON string
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** While the returned scope is open, lines written on this thread carry {@code trace}. */
  public static RequestScope request(Optional<RequestTrace> trace) {
    RequestTrace previous = REQUEST_TRACE.get();
    if (trace.isPresent()) {
      REQUEST_TRACE.set(trace.get());
    } else {
      REQUEST_TRACE.remove();
    }
    return () -> {
      if (previous == null) {
        REQUEST_TRACE.remove();
      } else {
        REQUEST_TRACE.set(previous);
      }
    };
  }

  /** The span of one request's lines; closing it cannot fail. */
  @FunctionalInterface
  public interface RequestScope extends AutoCloseable {
    @Override
    void close();
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
    String line =
        masked(LogLine.json(severity, message, Instant.now(), withTrace(fields), failure));
    PrintStream target = out;
    synchronized (target) {
      target.println(line);
    }
  }

  /**
   * The line with every registered secret masked in its text values. The line's JSON is kept: a
   * secret such as {@code ","} also appears between fields, where replacing it would break the
   * line.
   */
  private static String masked(String line) {
    if (SECRETS.stream().noneMatch(line::contains)) {
      return line;
    }
    try {
      return JSON.writeValueAsString(maskedTexts(JSON.readTree(line)));
    } catch (JsonProcessingException e) {
      return "{\"severity\":\"ERROR\",\"message\":\"log line failed\"}";
    }
  }

  private static JsonNode maskedTexts(JsonNode node) {
    if (node.isTextual()) {
      String text = node.textValue();
      for (String secret : SECRETS) {
        text = text.replace(secret, MASK);
      }
      return TextNode.valueOf(text);
    }
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      object.properties().forEach(field -> field.setValue(maskedTexts(field.getValue())));
    } else if (node.isArray()) {
      ArrayNode array = (ArrayNode) node;
      for (int i = 0; i < array.size(); i++) {
        array.set(i, maskedTexts(array.get(i)));
      }
    }
    return node;
  }

  private static Map<String, ?> withTrace(Map<String, ?> fields) {
    RequestTrace trace = REQUEST_TRACE.get();
    String project = traceProject;
    if (trace == null || project == null) {
      return fields;
    }
    Map<String, Object> traced = new LinkedHashMap<>(fields);
    traced.put(TRACE, "projects/" + project + "/traces/" + trace.traceId());
    if (trace.spanId() != null) {
      traced.put(SPAN_ID, trace.spanId());
    }
    traced.put(TRACE_SAMPLED, trace.sampled());
    return traced;
  }
}
