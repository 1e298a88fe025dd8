package dev.pubsubclickhouse.backfill.source;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RowRangeTest {
  @Test
  void tasksCoverEveryRowExactlyOnceInWholePagesAndDifferByAtMostOnePage() {
    for (long total : new long[] {0, 1, 7, 1000, 1_000_003}) {
      for (int pageRows : new int[] {1, 3, 150, 50_000}) {
        for (int count : new int[] {1, 2, 3, 10, 64}) {
          long next = 0;
          long smallest = Long.MAX_VALUE;
          long largest = 0;
          for (int task = 0; task < count; task++) {
            RowRange range = RowRange.forTask(total, pageRows, task, count);
            String which =
                String.format("task %d of %d, %d rows, pages of %d", task, count, total, pageRows);
            assertThat(range.start()).as(which).isEqualTo(next);
            assertThat(range.end() % pageRows == 0 || range.end() == total)
                .as("%s ends on a page boundary: %s", which, range)
                .isTrue();
            next = range.end();
            smallest = Math.min(smallest, range.size());
            largest = Math.max(largest, range.size());
          }
          assertThat(next).isEqualTo(total);
          assertThat(largest - smallest).isLessThanOrEqualTo(pageRows);
        }
      }
    }
  }

  @Test
  void pagesOfTheSameSizeHaveTheSameBoundariesWhateverTheTaskCount() {
    assertThat(RowRange.forTask(100, 30, 0, 2)).isEqualTo(new RowRange(0, 60));
    assertThat(RowRange.forTask(100, 30, 1, 2)).isEqualTo(new RowRange(60, 100));
    assertThat(RowRange.forTask(100, 30, 0, 3)).isEqualTo(new RowRange(0, 30));
    assertThat(RowRange.forTask(100, 30, 1, 3)).isEqualTo(new RowRange(30, 60));
    assertThat(RowRange.forTask(100, 30, 2, 3)).isEqualTo(new RowRange(60, 100));
    assertThat(RowRange.forTask(100, 30, 4, 5)).isEqualTo(new RowRange(90, 100));
    assertThat(RowRange.forTask(100, 30, 3, 5)).isEqualTo(new RowRange(60, 90));
  }

  @Test
  void moreTasksThanPagesLeaveTheRestEmpty() {
    assertThat(RowRange.forTask(25, 10, 0, 4)).isEqualTo(new RowRange(0, 0));
    assertThat(RowRange.forTask(25, 10, 1, 4)).isEqualTo(new RowRange(0, 10));
    assertThat(RowRange.forTask(25, 10, 2, 4)).isEqualTo(new RowRange(10, 20));
    assertThat(RowRange.forTask(25, 10, 3, 4)).isEqualTo(new RowRange(20, 25));
  }

  @Test
  void hugeTablesAndTaskCountsDoNotOverflow() {
    RowRange last = RowRange.forTask(Long.MAX_VALUE / 2, 50_000, 9_999, 10_000);
    assertThat(last.end()).isEqualTo(Long.MAX_VALUE / 2);
    assertThat(last.start() % 50_000).isZero();
    assertThat(RowRange.forTask(Long.MAX_VALUE, 3, 0, 2).end() % 3).isZero();
  }
}
