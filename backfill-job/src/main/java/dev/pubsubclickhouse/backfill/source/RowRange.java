package dev.pubsubclickhouse.backfill.source;

import java.math.BigInteger;

/**
 * A half-open range of row positions [start, end) in the source table.
 *
 * <p>A table read through REST is cut into pages of {@code pageRows} rows from row 0: page p holds
 * rows [p * pageRows, (p + 1) * pageRows), the last one fewer. Of its P pages, task i of n takes
 * pages [i * P / n, (i + 1) * P / n): the ranges are disjoint, cover every row, start and end on
 * page boundaries, and differ in size by at most one page. So the same rows form the same page
 * whatever the task count.
 */
public record RowRange(long start, long end) {
  public RowRange {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("invalid row range [" + start + ", " + end + ")");
    }
  }

  public static RowRange forTask(long totalRows, int pageRows, int taskIndex, int taskCount) {
    long pages = totalRows / pageRows + (totalRows % pageRows == 0 ? 0 : 1);
    return new RowRange(
        firstRowOfShare(totalRows, pageRows, pages, taskIndex, taskCount),
        firstRowOfShare(totalRows, pageRows, pages, taskIndex + 1, taskCount));
  }

  public long size() {
    return end - start;
  }

  /** The first row of page index * pages / count, or the table's end. */
  private static long firstRowOfShare(
      long totalRows, int pageRows, long pages, int index, int count) {
    // pages * index can exceed a long for very large tables and task counts.
    return BigInteger.valueOf(pages)
        .multiply(BigInteger.valueOf(index))
        .divide(BigInteger.valueOf(count))
        .multiply(BigInteger.valueOf(pageRows))
        .min(BigInteger.valueOf(totalRows))
        .longValueExact();
  }

  @Override
  public String toString() {
    return "[" + start + ", " + end + ")";
  }
}
