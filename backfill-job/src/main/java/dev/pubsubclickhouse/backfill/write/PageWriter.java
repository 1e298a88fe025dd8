package dev.pubsubclickhouse.backfill.write;

import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteOutcome;
import dev.pubsubclickhouse.core.write.WriteRecord;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes encoded pages through core's {@link TableWriter}, each source row a record of its own: one
 * INSERT per page (or per maxInsertBlockSize rows), the rows ClickHouse refuses isolated and
 * dead-lettered there. A row's identity is its position in the read unit (the writer's source names
 * the unit), so the same rows of an unchanged source give the same deduplication tokens whichever
 * task or run sends them.
 */
public final class PageWriter {
  /**
   * What became of one page.
   *
   * @param refused rows that cannot be written and that no dead-letter sink keeps
   * @param refusals the reasons of the first refused rows, for the log
   * @param notWritten the indexes in the page of the rows dead-lettered or refused, ascending
   */
  public record Result(
      long written, long deadLettered, long refused, List<String> refusals, int[] notWritten) {}

  /** A page whose rows ClickHouse did not take for a reason that may pass. */
  public static final class PageNotWrittenException extends Exception {
    PageNotWrittenException(String message, Exception cause) {
      super(message, cause);
    }
  }

  private static final int REFUSALS_KEPT = 10;

  private final TableWriter writer;
  private final String sourceFingerprint;
  private final int maxRowsPerInsert;
  private final Clock clock;

  public PageWriter(
      TableWriter writer, String sourceFingerprint, long maxInsertBlockSize, Clock clock) {
    this.writer = writer;
    this.sourceFingerprint = sourceFingerprint;
    this.maxRowsPerInsert = (int) Math.min(Integer.MAX_VALUE, maxInsertBlockSize);
    this.clock = clock;
  }

  /**
   * @throws PageNotWrittenException when ClickHouse or a dead-letter sink failed for a reason that
   *     may pass (after the retries): the task stops, and a retried task starts at this page
   */
  public Result write(EncodedPage page) throws PageNotWrittenException {
    long written = 0;
    long deadLettered = 0;
    long refused = 0;
    List<String> refusals = new ArrayList<>(0);
    List<Integer> notWritten = new ArrayList<>(0);
    for (int from = 0; from < page.rowsRead(); from += maxRowsPerInsert) {
      int to = Math.min(page.rowsRead(), from + maxRowsPerInsert);
      List<SourceRow> rows = new ArrayList<>(to - from);
      for (int i = from; i < to; i++) {
        rows.add(new SourceRow(page, i));
      }
      TableWriter.Result result = writer.write(rows);
      List<WriteOutcome> outcomes = result.outcomes();
      for (int i = 0; i < outcomes.size(); i++) {
        switch (outcomes.get(i)) {
          case WRITTEN -> written++;
          case DEAD_LETTERED -> {
            deadLettered++;
            notWritten.add(from + i);
          }
          case REFUSED -> {
            refused++;
            notWritten.add(from + i);
            if (refusals.size() < REFUSALS_KEPT) {
              refusals.add("source row " + rows.get(i).position() + ": " + rows.get(i).refusal);
            }
          }
          case RETRY ->
              throw new PageNotWrittenException(
                  "rows from source row " + rows.get(i).position() + " on were not written",
                  result.retryCause());
        }
      }
    }
    return new Result(
        written,
        deadLettered,
        refused,
        refusals,
        notWritten.stream().mapToInt(Integer::intValue).toArray());
  }

  /** One source row as a record of its own. */
  private final class SourceRow implements WriteRecord {
    private final EncodedPage page;
    private final int index;
    private String refusal;

    SourceRow(EncodedPage page, int index) {
      this.page = page;
      this.index = index;
    }

    long position() {
      return page.position(index);
    }

    @Override
    public String identity() {
      return Long.toString(position(), Character.MAX_RADIX);
    }

    @Override
    public EncodedRows rowsFor(TargetTable.Snapshot schema) {
      EncodedRows rows = schema.encoder() == page.encoder() ? asEncoded() : encodeFor(schema);
      refusal = rows.rejection();
      return rows;
    }

    private EncodedRows asEncoded() {
      if (page.rejections()[index] != null) {
        return EncodedRows.rejected(page.rejections()[index]);
      }
      int start = page.rowStarts()[index];
      return EncodedRows.of(page.bytes(), start, page.rowStarts()[index + 1] - start, 1);
    }

    private EncodedRows encodeFor(TargetTable.Snapshot schema) {
      RowBinaryOutput out = new RowBinaryOutput();
      try {
        schema.encoder().encode(page.rows().get(index), out);
      } catch (RowRejectedException e) {
        return EncodedRows.rejected(e.getMessage());
      }
      return EncodedRows.of(out.toByteArray(), 0, out.size(), 1);
    }

    @Override
    public DeadLetter deadLetter(String reason) {
      byte[] row = page.rows().get(index).toString().getBytes(StandardCharsets.UTF_8);
      Map<String, String> origin = new LinkedHashMap<>();
      origin.put(DeadLetter.SOURCE_ROW, Long.toString(position()));
      return DeadLetter.builder()
          .identity(sourceFingerprint + "\n" + position())
          .data(row)
          .origin(origin)
          .reason("source row " + position() + ": " + reason)
          .failedAt(clock.instant())
          .build();
    }
  }
}
