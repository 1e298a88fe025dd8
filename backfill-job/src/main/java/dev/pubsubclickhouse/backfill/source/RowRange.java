package dev.pubsubclickhouse.backfill.source;

import java.math.BigInteger;

/**
 * A half-open range of row positions [start, end) in the source table.
 *
 * <p>Task i of n takes [i * total / n, (i + 1) * total / n): the ranges are disjoint, cover every
 * row, and differ in size by at most one row.
 */
public record RowRange(long start, long end) {
  public RowRange {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("invalid row range [" + start + ", " + end + ")");
    }
  }

  public static RowRange forTask(long totalRows, int taskIndex, int taskCount) {
    return new RowRange(
        boundary(totalRows, taskIndex, taskCount), boundary(totalRows, taskIndex + 1, taskCount));
  }

  public long size() {
    return end - start;
  }

  private static long boundary(long total, int index, int count) {
    // total * index can exceed a long for very large tables and task counts.
    return BigInteger.valueOf(total)
        .multiply(BigInteger.valueOf(index))
        .divide(BigInteger.valueOf(count))
        .longValueExact();
  }

  @Override
  public String toString() {
    return "[" + start + ", " + end + ")";
  }
}
