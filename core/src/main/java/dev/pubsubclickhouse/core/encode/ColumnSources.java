package dev.pubsubclickhouse.core.encode;

import java.util.Map;

/**
 * Where columns take their values from when not from the row's field of the same name: a column to
 * a path in the row or in its message. A table uses the entries for the columns it has; its other
 * columns take the field of their name.
 *
 * @param paths by column name
 */
public record ColumnSources(Map<String, FieldPath> paths) {
  /** Every column from the field of its name. */
  public static final ColumnSources BY_NAME = new ColumnSources(Map.of());

  public ColumnSources {
    paths = Map.copyOf(paths);
  }

  /** The path of {@code column}, or null when it takes the field of its name. */
  public FieldPath of(String column) {
    return paths.get(column);
  }

  public boolean isEmpty() {
    return paths.isEmpty();
  }
}
