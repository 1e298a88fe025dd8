package dev.pubsubclickhouse.backfill.source;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RowRangeTest {
  @Test
  void tasksCoverEveryRowExactlyOnceInRangesThatDifferByAtMostOne() {
    for (long total : new long[] {0, 1, 7, 1000, 1_000_003}) {
      for (int count : new int[] {1, 2, 3, 10, 64}) {
        long next = 0;
        long smallest = Long.MAX_VALUE;
        long largest = 0;
        for (int task = 0; task < count; task++) {
          RowRange range = RowRange.forTask(total, task, count);
          assertThat(range.start())
              .as("task %d of %d, %d rows", task, count, total)
              .isEqualTo(next);
          next = range.end();
          smallest = Math.min(smallest, range.size());
          largest = Math.max(largest, range.size());
        }
        assertThat(next).isEqualTo(total);
        assertThat(largest - smallest).isLessThanOrEqualTo(1);
      }
    }
  }

  @Test
  void hugeTablesAndTaskCountsDoNotOverflow() {
    RowRange last = RowRange.forTask(Long.MAX_VALUE / 2, 9_999, 10_000);
    assertThat(last.end()).isEqualTo(Long.MAX_VALUE / 2);
  }
}
