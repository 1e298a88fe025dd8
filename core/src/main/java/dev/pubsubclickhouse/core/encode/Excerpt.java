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
    int limit = cut(text);
    for (int i = 0; i < limit; i++) {
      char c = text.charAt(i);
      if (isLoneSurrogate(text, i)) {
        quoted.append(String.format("\\u%04x", (int) c));
        continue;
      }
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
    int limit = cut(text);
    StringBuilder clipped = new StringBuilder(limit + 24);
    for (int i = 0; i < limit; i++) {
      if (isLoneSurrogate(text, i)) {
        clipped.append(String.format("\\u%04x", (int) text.charAt(i)));
      } else {
        clipped.append(text.charAt(i));
      }
    }
    if (limit < text.length()) {
      clipped.append("... (").append(text.length()).append(" chars)");
    }
    return clipped.toString();
  }

  /** Where an excerpt ends: at most MAX_CHARS, never between the two halves of a pair. */
  private static int cut(String text) {
    if (text.length() <= MAX_CHARS) {
      return text.length();
    }
    boolean splitsPair =
        Character.isHighSurrogate(text.charAt(MAX_CHARS - 1))
            && Character.isLowSurrogate(text.charAt(MAX_CHARS));
    return splitsPair ? MAX_CHARS - 1 : MAX_CHARS;
  }

  /** A surrogate without its other half: it has no UTF-8 form, so it is shown escaped. */
  private static boolean isLoneSurrogate(String text, int i) {
    char c = text.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i == 0 || !Character.isHighSurrogate(text.charAt(i - 1));
    }
    return false;
  }
}
