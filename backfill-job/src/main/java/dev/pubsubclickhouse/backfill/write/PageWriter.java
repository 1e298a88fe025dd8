package dev.pubsubclickhouse.backfill.write;

import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.FailureKind;
import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.core.schema.TableName;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Inserts encoded pages: one INSERT per page (or per maxInsertBlockSize rows), each with a
 * deduplication token made of the source fingerprint and the page's row range, so the same page
 * inserted again (a retried task, a re-run) is dropped by a deduplicating table.
 *
 * <p>An INSERT that ClickHouse refuses for the data's sake is split in halves until the refused
 * rows stand alone; those go to the dead letters with ClickHouse's message. Any other failure
 * (after the inserter's retries) stops the job.
 */
public final class PageWriter {
  /** What became of one page. */
  public record Result(long written, List<RejectedRow> refused) {}

  private final ClickHouseInserter inserter;
  private final TableName table;
  private final List<String> columns;
  private final boolean readsJsonAsString;
  private final DeduplicationTokens tokens;
  private final int maxRowsPerInsert;
  private final Clock clock;

  public PageWriter(
      ClickHouseInserter inserter,
      TableName table,
      ColumnPlan plan,
      DeduplicationTokens tokens,
      Clock clock) {
    this.inserter = inserter;
    this.table = table;
    this.columns = plan.encoder().columnNames();
    this.readsJsonAsString = plan.encoder().readsJsonAsString();
    this.tokens = tokens;
    this.maxRowsPerInsert =
        (int) Math.min(Integer.MAX_VALUE, inserter.options().maxInsertBlockSize());
    this.clock = clock;
  }

  /**
   * @throws InsertException when ClickHouse cannot take the rows for a reason other than the data
   */
  public Result write(EncodedPage page) throws InsertException, InterruptedException {
    long written = 0;
    List<RejectedRow> refused = new ArrayList<>(0);
    for (int from = 0; from < page.encodedCount(); from += maxRowsPerInsert) {
      int to = Math.min(page.encodedCount(), from + maxRowsPerInsert);
      written += insert(page, from, to, refused);
    }
    return new Result(written, refused);
  }

  private long insert(EncodedPage page, int from, int to, List<RejectedRow> refused)
      throws InsertException, InterruptedException {
    long first = page.startIndex() + page.rowOffsets()[from];
    long end = page.startIndex() + page.rowOffsets()[to - 1] + 1;
    String token = tokens.forRows(first, end);
    try {
      inserter.insert(table, columns, slice(page, from, to), token, readsJsonAsString);
      return to - from;
    } catch (InsertException e) {
      if (e.kind() != FailureKind.BAD_DATA) {
        throw e;
      }
      if (to - from == 1) {
        int offset = page.rowOffsets()[from];
        refused.add(
            new RejectedRow(
                first,
                page.rows().get(offset).toString(),
                "ClickHouse refused the row: " + e.getMessage(),
                clock.instant()));
        return 0;
      }
      int middle = (from + to) >>> 1;
      return insert(page, from, middle, refused) + insert(page, middle, to, refused);
    }
  }

  private static RowBinaryOutput slice(EncodedPage page, int from, int to) {
    if (from == 0 && to == page.encodedCount()) {
      return page.bytes();
    }
    int start = page.rowStart(from);
    int end = page.rowEnds()[to - 1];
    RowBinaryOutput part = new RowBinaryOutput(end - start);
    part.writeBytes(page.bytes().copyOfRange(start, end));
    return part;
  }
}
