package dev.pubsubclickhouse.messages.tables;

import static dev.pubsubclickhouse.messages.MessageParameters.COLUMN_MAPPING;
import static dev.pubsubclickhouse.messages.MessageParameters.COLUMN_MAPPING_FILE;

import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.encode.ColumnSources;
import dev.pubsubclickhouse.core.encode.FieldPath;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * COLUMN_MAPPING and COLUMN_MAPPING_FILE: {@code column=source} pairs. A source is a path in the
 * row ({@link FieldPath}), {@code $data} (the message data as text) or {@code $attributes.NAME}
 * (one attribute; NAME quoted like a path's name when it holds {@code .}). A column name is bare
 * (up to the {@code =}) or quoted like a path's name.
 */
public final class ColumnMapping {
  /** The message's object the {@code $} sources are paths in: see MessageEncoder. */
  public static final String DATA = "data";

  public static final String ATTRIBUTES = "attributes";

  private static final String BYTE_ORDER_MARK = "\uFEFF";

  private ColumnMapping() {}

  /**
   * The pairs of both parameters.
   *
   * @throws ConfigurationException naming the parameter and the pair (or the file's line)
   */
  public static ColumnSources read(ConfigReader config) {
    Map<String, FieldPath> paths = new LinkedHashMap<>();
    Optional<String> listed = config.optional(COLUMN_MAPPING);
    if (listed.isPresent()) {
      for (String pair : splitPairs(listed.get())) {
        add(paths, pair, error -> config.problem(COLUMN_MAPPING, "'" + pair + "': " + error));
      }
    }
    Optional<String> file = config.optional(COLUMN_MAPPING_FILE);
    if (file.isPresent()) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(file.get()), StandardCharsets.UTF_8);
      } catch (IOException | RuntimeException e) {
        throw config.problem(COLUMN_MAPPING_FILE, "cannot read " + file.get() + ": " + e);
      }
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (i == 0 && line.startsWith(BYTE_ORDER_MARK)) {
          // Some editors begin a UTF-8 file with it; left on, it would rename the first column.
          line = line.substring(1).strip();
        }
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        String where = file.get() + " line " + (i + 1) + " '" + line + "': ";
        add(paths, line, error -> config.problem(COLUMN_MAPPING_FILE, where + error));
      }
    }
    return new ColumnSources(paths);
  }

  private static void add(
      Map<String, FieldPath> paths, String pair, Function<String, ConfigurationException> problem) {
    StringBuilder column = new StringBuilder();
    int equals;
    try {
      equals = column(pair, column);
    } catch (IllegalArgumentException e) {
      throw problem.apply(e.getMessage());
    }
    String name = column.toString();
    if (paths.containsKey(name)) {
      throw problem.apply("column '" + name + "' is mapped twice");
    }
    String source = pair.substring(equals + 1).strip();
    try {
      paths.put(name, source(source));
    } catch (IllegalArgumentException e) {
      throw problem.apply(e.getMessage());
    }
  }

  /** Reads the column name into {@code name}; returns the place of the {@code =} after it. */
  private static int column(String pair, StringBuilder name) {
    int i = 0;
    if (pair.startsWith("\"")) {
      i = closingQuote(pair) + 1;
      name.append(FieldPath.parse(pair.substring(0, i)).firstField());
      while (i < pair.length() && Character.isWhitespace(pair.charAt(i))) {
        i++;
      }
      if (i == pair.length() || pair.charAt(i) != '=') {
        throw new IllegalArgumentException("expected column=source");
      }
      return i;
    }
    int equals = pair.indexOf('=');
    if (equals < 0) {
      throw new IllegalArgumentException("expected column=source");
    }
    name.append(pair, 0, equals);
    String trimmed = name.toString().strip();
    if (trimmed.isEmpty()) {
      throw new IllegalArgumentException("the column name is empty");
    }
    name.setLength(0);
    name.append(trimmed);
    return equals;
  }

  private static FieldPath source(String text) {
    if (text.isEmpty()) {
      throw new IllegalArgumentException("the source is empty");
    }
    if (!text.startsWith("$")) {
      return FieldPath.parse(text);
    }
    if (text.equals("$" + DATA)) {
      return FieldPath.parse(DATA).inMessage(text);
    }
    String prefix = "$" + ATTRIBUTES + ".";
    if (text.startsWith(prefix)) {
      FieldPath attribute = FieldPath.parse(text.substring(prefix.length()));
      if (attribute.length() != 1) {
        throw new IllegalArgumentException(
            "an attribute is one name (quote a name that holds '.' or '['): " + text);
      }
      return FieldPath.parse(ATTRIBUTES + "." + quote(attribute.key(0))).inMessage(text);
    }
    throw new IllegalArgumentException(
        "unknown source '" + text + "': the message sources are $data and $attributes.NAME");
  }

  private static String quote(String name) {
    return '"' + name.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  /** The place of the quote that closes the one at 0, skipping escaped ones; -1 for none. */
  private static int closingQuote(String text) {
    for (int i = 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '"') {
        return i;
      }
    }
    throw new IllegalArgumentException("the quote at 0 is not closed");
  }

  /** The pairs of a comma-separated list: commas inside quotes are part of a name. */
  private static List<String> splitPairs(String value) {
    List<String> pairs = new ArrayList<>();
    StringBuilder pair = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (quoted && c == '\\' && i + 1 < value.length()) {
        pair.append(c).append(value.charAt(++i));
        continue;
      }
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        addPair(pairs, pair);
        continue;
      }
      pair.append(c);
    }
    addPair(pairs, pair);
    return pairs;
  }

  private static void addPair(List<String> pairs, StringBuilder pair) {
    String text = pair.toString().strip();
    if (!text.isEmpty()) {
      pairs.add(text);
    }
    pair.setLength(0);
  }
}
