package dev.pubsubclickhouse.messages.cdc;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The highest version below which each source table's rows were deleted (a truncate, or the end of
 * a re-snapshot) by this instance: a change of a lower version that arrives later belongs to the
 * time before, and is not written again. An instance learns only its own marks: a change delivered
 * to another instance after the deletion is written there (see docs/cdc.md). Thread-safe.
 */
public final class TruncateMarks {
  private final Map<String, Long> marks = new ConcurrentHashMap<>();

  /** Records that rows of {@code table} below {@code version} (unsigned) were deleted. */
  public void deletedBelow(SourceTable table, long version) {
    marks.merge(table.name(), version, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
  }

  /** True when the change's rows were deleted by a later truncate or re-snapshot. */
  public boolean superseded(ChangeEvent event) {
    Long mark = marks.get(event.table().name());
    return mark != null && Long.compareUnsigned(event.version(), mark) < 0;
  }
}
