package dev.pubsubclickhouse.core.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.PrintStream;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The programs' one log: structured lines on stdout that Cloud Logging reads as JSON: {@code
 * severity}, {@code message}, {@code time} and any fields, with a stack trace for a failure (see
 * {@link LogLine}). On a terminal a program may ask for plain text instead ({@link #format}), and
 * {@link #text} prints what a person reads as it is. Libraries' records come here too ({@link
 * #captureLibraryLogs()}), and a line written while a request is served carries the request's
 * trace. Nothing here logs per message at INFO; callers pass only values that are safe to print,
 * and a registered secret is masked wherever it appears.
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
  private static volatile Format format = Format.JSON;
  private static volatile Clock clock = Clock.systemUTC();

  /** How lines are written. */
  public enum Format {
    /** One JSON object per line, as Cloud Logging reads it. */
    JSON,
    /**
     * Plain text for a person at a terminal: {@code WARNING: message (field=value, ...)}, INFO
     * lines without the severity.
     */
    TEXT,
    /**
     * Plain text without the severity, for a command whose messages say what they are ({@code
     * replay stopped: ...}).
     */
    MESSAGE
  }

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

  /** Where lines go: stdout unless a program or a test says otherwise. */
  public static void redirect(PrintStream stream) {
    out = stream;
  }

  /** How lines are written from now on (JSON unless a program says otherwise). */
  public static void format(Format value) {
    format = value;
  }

  /**
   * A command-line tool's log: lines to {@code stream} in {@code format}, and the libraries'
   * records with them from WARNING up, so that libraries speak up only when something is wrong.
   */
  public static void forCommandLine(PrintStream stream, Format format) {
    redirect(stream);
    format(format);
    captureLibraryLogs(Level.WARNING);
  }

  /** The clock of the lines' {@code time}; tests fix it. */
  public static void clock(Clock value) {
    clock = value;
  }

  /** Back to JSON lines on stdout at the system's time, as a test that changed them leaves it. */
  public static void reset() {
    redirect(System.out);
    format(Format.JSON);
    clock(Clock.systemUTC());
  }

  /**
   * From now on every library's log records (java.util.logging, and SLF4J through its JUL provider)
   * at INFO and above are written here as lines, instead of as text on stderr; the ClickHouse
   * client's warnings about each failed request are left out (see {@link #QUIETED}).
   */
  public static void captureLibraryLogs() {
    captureLibraryLogs(Level.INFO);
    quietClickHouseClient();
  }

  /**
   * Leaves out the ClickHouse client's warnings about each failed request, with their stack traces:
   * a program that says why it cannot use ClickHouse in one line of its own, and shows them only
   * when asked to be verbose.
   */
  public static void quietClickHouseClient() {
    QUIETED.forEach(logger -> logger.setLevel(Level.SEVERE));
  }

  /**
   * The same for records at {@code minimum} and above, every library's alike: for a program that
   * lets libraries speak up only when something is wrong (WARNING).
   */
  public static void captureLibraryLogs(Level minimum) {
    JsonLogHandler.install(JsonLog::write, minimum);
  }

  /** Text a person reads (a plan, a listing), printed as it is in every format. */
  public static void text(String text) {
    PrintStream target = out;
    synchronized (target) {
      target.print(maskedText(text));
      target.flush();
    }
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
    // ClickHouse quotes a refused value in its message ("Column values: s = '...'"), and that
    // message is a dead letter's reason: a password with a quote or a backslash is shown escaped.
    SECRETS.add(clickHouseQuoted(secret));
  }

  /** {@code text} as ClickHouse writes it between single quotes in its messages. */
  private static String clickHouseQuoted(String text) {
    StringBuilder quoted = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\'' -> quoted.append("\\'");
        case '\\' -> quoted.append("\\\\");
        case '\0' -> quoted.append("\\0");
        case '\b' -> quoted.append("\\b");
        case '\t' -> quoted.append("\\t");
        case '\n' -> quoted.append("\\n");
        case '\f' -> quoted.append("\\f");
        case '\r' -> quoted.append("\\r");
        default -> quoted.append(c);
      }
    }
    return quoted.toString();
  }

  /**
   * {@code text} with every secret registered by {@link #neverPrint} masked: for text that leaves
   * the process other than as a log line (a refused message's reason, in its answer and its dead
   * letter).
   */
  public static String withoutSecrets(String text) {
    return maskedText(text);
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

  public static void error(String message, Map<String, ?> fields) {
    write("ERROR", message, fields, null);
  }

  public static void error(String message, Map<String, ?> fields, Throwable failure) {
    write("ERROR", message, fields, failure);
  }

  private static void write(
      String severity, String message, Map<String, ?> fields, Throwable failure) {
    Format written = format;
    String line =
        written == Format.JSON
            ? masked(LogLine.json(severity, message, clock.instant(), withTrace(fields), failure))
            : maskedText(LogLine.text(written == Format.TEXT, severity, message, fields, failure));
    PrintStream target = out;
    synchronized (target) {
      target.println(line);
      target.flush();
    }
  }

  private static String maskedText(String line) {
    for (String secret : SECRETS) {
      line = line.replace(secret, MASK);
    }
    return line;
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
