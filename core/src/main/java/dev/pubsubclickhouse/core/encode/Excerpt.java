package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/** A short, printable form of a value for error messages, bounded whatever the value's size. */
final class Excerpt {
  static final int MAX_CHARS = 64;

  private Excerpt() {}

  static String of(JsonNode value) {
    if (value == null || value.isMissingNode()) {
      return "(missing)";
    }
    if (value.isTextual()) {
      return quote(value.textValue());
    }
    if (value.isArray()) {
      return "an array of " + value.size() + " elements " + clip(value.toString());
    }
    if (value.isObject()) {
      return "an object with " + value.size() + " fields " + clip(value.toString());
    }
    return clip(value.toString());
  }

  static String quote(String text) {
    StringBuilder quoted = new StringBuilder("\"");
    int limit = Math.min(text.length(), MAX_CHARS);
    for (int i = 0; i < limit; i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> quoted.append("\\\"");
        case '\\' -> quoted.append("\\\\");
        case '\n' -> quoted.append("\\n");
        case '\t' -> quoted.append("\\t");
        case '\r' -> quoted.append("\\r");
        default -> {
          if (c < 0x20) {
            quoted.append(String.format("\\u%04x", (int) c));
          } else {
            quoted.append(c);
          }
        }
      }
    }
    quoted.append('"');
    if (text.length() > MAX_CHARS) {
      quoted.append("... (").append(text.length()).append(" chars)");
    }
    return quoted.toString();
  }

  private static String clip(String text) {
    return text.length() <= MAX_CHARS
        ? text
        : text.substring(0, MAX_CHARS) + "... (" + text.length() + " chars)";
  }
}
