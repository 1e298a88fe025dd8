package dev.pubsubclickhouse.messages.cdc;

import dev.pubsubclickhouse.core.schema.TableName;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The highest truncate mark this instance has seen for each target table (one it applied, or one it
 * read from the marks table): a change of a lower version belongs to the time before that truncate,
 * and is not written. Only a shortcut: a mark this instance has not seen yet is caught after the
 * INSERT ({@link TruncateGuard}). Thread-safe.
 */
public final class TruncateMarks {
  private final Map<TableName, Long> marks = new ConcurrentHashMap<>();

  /** Records that rows of {@code table} below {@code version} (unsigned) are to be deleted. */
  public void deletedBelow(TableName table, long version) {
    marks.merge(table, version, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
  }

  /** True when a change of {@code table} at {@code version} is below a mark seen already. */
  public boolean superseded(TableName table, long version) {
    Long mark = marks.get(table);
    return mark != null && Long.compareUnsigned(version, mark) < 0;
  }
}
