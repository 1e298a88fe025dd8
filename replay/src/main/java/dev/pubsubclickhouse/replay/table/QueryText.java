package dev.pubsubclickhouse.replay.table;

/**
 * A String query parameter as ClickHouse reads one: in its escaped text form, where a backslash
 * starts an escape sequence. The client sends the value as given.
 */
final class QueryText {
  private QueryText() {}

  static String escape(String value) {
    StringBuilder escaped = new StringBuilder(value.length() + 8);
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> escaped.append("\\\\");
        case '\n' -> escaped.append("\\n");
        case '\t' -> escaped.append("\\t");
        case '\r' -> escaped.append("\\r");
        case '\0' -> escaped.append("\\0");
        default -> escaped.append(c);
      }
    }
    return escaped.toString();
  }
}
