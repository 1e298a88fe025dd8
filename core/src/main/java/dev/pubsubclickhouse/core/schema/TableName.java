package dev.pubsubclickhouse.core.schema;

import java.util.regex.Pattern;

/**
 * A validated database and table name. Names from configuration only ever reach SQL through {@link
 * #quoted()}; values never reach SQL text at all.
 */
public record TableName(String database, String table) {
  private static final Pattern IDENTIFIER = Pattern.compile("[\\p{L}\\p{N}_$-]{1,255}");

  public TableName {
    requireIdentifier("database", database);
    requireIdentifier("table", table);
  }

  /** Reads {@code table} or {@code database.table}; a bare table is in {@code defaultDatabase}. */
  public static TableName parse(String name, String defaultDatabase) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a table name is required");
    }
    int dot = name.indexOf('.');
    return dot < 0
        ? new TableName(defaultDatabase, name)
        : new TableName(name.substring(0, dot), name.substring(dot + 1));
  }

  /** {@code `database`.`table`}, safe to put into SQL. */
  public String quoted() {
    return quoteIdentifier(database) + "." + quoteIdentifier(table);
  }

  public static String quoteIdentifier(String identifier) {
    return "`" + identifier.replace("\\", "\\\\").replace("`", "\\`") + "`";
  }

  @Override
  public String toString() {
    return database + "." + table;
  }

  private static void requireIdentifier(String what, String identifier) {
    if (identifier == null || !IDENTIFIER.matcher(identifier).matches()) {
      throw new IllegalArgumentException(
          what
              + " name "
              + (identifier == null ? "is missing" : "'" + printable(identifier) + "' is invalid")
              + ": use 1 to 255 letters, digits, '_', '$' or '-'");
    }
  }

  private static String printable(String text) {
    String clipped = text.length() > 64 ? text.substring(0, 64) + "..." : text;
    return clipped.replaceAll("\\p{Cntrl}", "?");
  }
}
