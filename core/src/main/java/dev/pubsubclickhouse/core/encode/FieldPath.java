package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a column's value is in a row: a field name, or a path into nested objects and arrays
 * ({@code user.id}, {@code items[0].sku}, {@code "a.b".c}). A path may also start from the message
 * the row came from instead of the row ({@link #inMessage}): the message is then a JSON object the
 * caller builds, such as {@code {"data": ..., "attributes": {...}}}.
 *
 * <p>Syntax: a field name, then any number of {@code .name} and {@code [index]}. A name is bare
 * (any characters but {@code . [ ] " , =} and white space) or quoted in double quotes, where {@code
 * \"} and {@code \\} stand for a quote and a backslash. An index is a decimal number from 0.
 */
public final class FieldPath {
  /** One step: into an object's field ({@code key} set) or an array's element. */
  private record Step(String key, int index) {}

  private final Step[] steps;
  private final boolean inMessage;
  private final String text;

  private FieldPath(List<Step> steps, boolean inMessage, String text) {
    this.steps = steps.toArray(new Step[0]);
    this.inMessage = inMessage;
    this.text = text;
  }

  /**
   * Parses a path of the row.
   *
   * @throws IllegalArgumentException naming what is wrong and where
   */
  public static FieldPath parse(String text) {
    List<Step> steps = new ArrayList<>();
    int i = 0;
    int length = text.length();
    if (length == 0) {
      throw new IllegalArgumentException("the path is empty");
    }
    if (text.charAt(0) == '[') {
      throw new IllegalArgumentException("a path begins with a field name, not an index");
    }
    boolean expectName = true;
    while (i < length) {
      char c = text.charAt(i);
      if (expectName) {
        StringBuilder name = new StringBuilder();
        i = c == '"' ? quoted(text, i, name) : bare(text, i, name);
        steps.add(new Step(name.toString(), -1));
        expectName = false;
      } else if (c == '.') {
        i++;
        if (i == length) {
          throw new IllegalArgumentException("the path ends with '.': a field name must follow");
        }
        expectName = true;
      } else if (c == '[') {
        int close = text.indexOf(']', i);
        if (close < 0) {
          throw new IllegalArgumentException("'[' at " + i + " has no ']'");
        }
        steps.add(new Step(null, index(text.substring(i + 1, close), i)));
        i = close + 1;
      } else {
        throw new IllegalArgumentException(
            "unexpected '"
                + c
                + "' at "
                + i
                + ": expected '.' or '[' (quote a name that holds it)");
      }
    }
    return new FieldPath(steps, false, text);
  }

  /** The same steps taken from the message instead of the row; {@code text} names it in reasons. */
  public FieldPath inMessage(String text) {
    return new FieldPath(List.of(steps), true, text);
  }

  /** True when the path starts from the message, not the row. */
  public boolean inMessage() {
    return inMessage;
  }

  /** The field of the row the path starts with, or null for a path in the message. */
  public String firstField() {
    return inMessage ? null : steps[0].key;
  }

  /** The number of steps. */
  public int length() {
    return steps.length;
  }

  /** The field name of a step, or null for an array index. */
  public String key(int step) {
    return steps[step].key;
  }

  /**
   * The value at the path, or null when it is missing: a field not there, an index beyond the
   * array, or a step into a value that is not an object (for a name) or an array (for an index).
   *
   * @param message the message's object, for a path in the message; may be null otherwise
   */
  public JsonNode find(JsonNode row, JsonNode message) {
    JsonNode node = inMessage ? message : row;
    for (Step step : steps) {
      if (node == null) {
        return null;
      }
      if (step.key != null) {
        node = node.isObject() ? node.get(step.key) : null;
      } else {
        node = node.isArray() ? node.get(step.index) : null;
      }
    }
    return node;
  }

  /** The path as written. */
  @Override
  public String toString() {
    return text;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FieldPath path
        && path.inMessage == inMessage
        && List.of(path.steps).equals(List.of(steps));
  }

  @Override
  public int hashCode() {
    return List.of(steps).hashCode() * 31 + (inMessage ? 1 : 0);
  }

  private static int quoted(String text, int start, StringBuilder name) {
    int i = start + 1;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '"') {
        return i + 1;
      }
      if (c == '\\') {
        if (i + 1 == text.length() || (text.charAt(i + 1) != '"' && text.charAt(i + 1) != '\\')) {
          throw new IllegalArgumentException(
              "'\\' at " + i + " in a quoted name: only \\\" and \\\\ are escapes");
        }
        i++;
        c = text.charAt(i);
      }
      name.append(c);
      i++;
    }
    throw new IllegalArgumentException("the quote at " + start + " is not closed");
  }

  private static int bare(String text, int start, StringBuilder name) {
    int i = start;
    while (i < text.length() && !endsBareName(text.charAt(i))) {
      name.append(text.charAt(i));
      i++;
    }
    if (i == start) {
      throw new IllegalArgumentException(
          "a field name is missing at "
              + start
              + (i < text.length() ? " (before '" + text.charAt(i) + "')" : ""));
    }
    if (i < text.length() && text.charAt(i) != '.' && text.charAt(i) != '[') {
      throw new IllegalArgumentException(
          "'" + text.charAt(i) + "' at " + i + " in a field name: quote the name (\"...\")");
    }
    return i;
  }

  private static boolean endsBareName(char c) {
    return c == '.'
        || c == '['
        || c == ']'
        || c == '"'
        || c == ','
        || c == '='
        || Character.isWhitespace(c);
  }

  private static int index(String digits, int at) {
    if (digits.isEmpty() || !digits.chars().allMatch(d -> d >= '0' && d <= '9')) {
      throw new IllegalArgumentException(
          "'[" + digits + "]' at " + at + ": an index is a number from 0");
    }
    try {
      return Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'[" + digits + "]' at " + at + ": index too large");
    }
  }
}
