package dev.pubsubclickhouse.core.encode;

import java.util.ArrayList;
import java.util.List;

/**
 * The names and numbers of an Enum8/Enum16 type, read from its text as ClickHouse writes it ({@code
 * Enum8('a' = 1, 'tab\there' = 2, 'it\'s' = 3)}). Names are string literals with ClickHouse's
 * escapes; client-v2's parser drops the backslash of {@code \t} or {@code \n} and so names the
 * wrong value.
 */
record EnumDefinition(List<String> names, List<Integer> numbers) {

  /** Parses {@code Enum8(...)} or {@code Enum16(...)}, also inside Nullable or LowCardinality. */
  static EnumDefinition parse(String type) {
    String text = type.trim();
    while (text.startsWith("Nullable(") || text.startsWith("LowCardinality(")) {
      text = text.substring(text.indexOf('(') + 1, text.length() - 1).trim();
    }
    if (!(text.startsWith("Enum8(") || text.startsWith("Enum16(")) || !text.endsWith(")")) {
      throw new IllegalArgumentException("not an enum type: " + type);
    }
    Reader reader = new Reader(text, text.indexOf('(') + 1, type);
    List<String> names = new ArrayList<>();
    List<Integer> numbers = new ArrayList<>();
    do {
      names.add(reader.quoted());
      reader.expect('=');
      numbers.add(reader.integer());
    } while (reader.next() == ',');
    return new EnumDefinition(List.copyOf(names), List.copyOf(numbers));
  }

  private static final class Reader {
    private final String text;
    private final String type;
    private int position;

    Reader(String text, int position, String type) {
      this.text = text;
      this.position = position;
      this.type = type;
    }

    private void skipSpaces() {
      while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
        position++;
      }
    }

    /** The next character after spaces, consumed. */
    char next() {
      skipSpaces();
      if (position >= text.length()) {
        throw malformed();
      }
      return text.charAt(position++);
    }

    void expect(char expected) {
      if (next() != expected) {
        throw malformed();
      }
    }

    int integer() {
      skipSpaces();
      int start = position;
      if (position < text.length() && text.charAt(position) == '-') {
        position++;
      }
      while (position < text.length()
          && text.charAt(position) >= '0'
          && text.charAt(position) <= '9') {
        position++;
      }
      try {
        return Integer.parseInt(text.substring(start, position));
      } catch (NumberFormatException e) {
        throw malformed();
      }
    }

    /** A single-quoted string literal: backslash escapes, and '' for a quote. */
    String quoted() {
      expect('\'');
      StringBuilder name = new StringBuilder();
      while (true) {
        if (position >= text.length()) {
          throw malformed();
        }
        char c = text.charAt(position++);
        if (c == '\'') {
          if (position < text.length() && text.charAt(position) == '\'') {
            name.append('\'');
            position++;
            continue;
          }
          return name.toString();
        }
        if (c != '\\') {
          name.append(c);
          continue;
        }
        if (position >= text.length()) {
          throw malformed();
        }
        char escaped = text.charAt(position++);
        switch (escaped) {
          case 'a' -> name.append('\u0007');
          case 'b' -> name.append('\b');
          case 'e' -> name.append('\u001b');
          case 'f' -> name.append('\f');
          case 'n' -> name.append('\n');
          case 'r' -> name.append('\r');
          case 't' -> name.append('\t');
          case 'v' -> name.append('\u000b');
          case '0' -> name.append('\0');
          case 'x' -> name.append(hexByte());
          default -> name.append(escaped);
        }
      }
    }

    /** The two hex digits of a \\xHH escape: one byte, read as Latin-1 when not ASCII. */
    private char hexByte() {
      if (position + 2 > text.length()) {
        throw malformed();
      }
      int high = NumericValues.hexDigit(text.charAt(position));
      int low = NumericValues.hexDigit(text.charAt(position + 1));
      if (high < 0 || low < 0) {
        throw malformed();
      }
      position += 2;
      return (char) (high * 16 + low);
    }

    private IllegalArgumentException malformed() {
      return new IllegalArgumentException("cannot read the enum type " + type);
    }
  }
}
