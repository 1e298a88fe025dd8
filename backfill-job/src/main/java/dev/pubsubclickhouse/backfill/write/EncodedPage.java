package dev.pubsubclickhouse.backfill.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import java.util.List;

/**
 * A page encoded for one INSERT: the RowBinary bytes of its good rows, where each row ends (so a
 * refused INSERT can be split), and the rows the encoder rejected.
 *
 * @param startIndex the source position of the page's first row
 * @param rows the page's rows as read, by offset from startIndex
 * @param rowEnds for each encoded row, the buffer size after it
 * @param rowOffsets for each encoded row, its offset in {@code rows}
 * @param encodedCount how many rows are encoded (the used length of the two arrays)
 */
public record EncodedPage(
    long startIndex,
    List<ObjectNode> rows,
    RowBinaryOutput bytes,
    int[] rowEnds,
    int[] rowOffsets,
    int encodedCount,
    List<RejectedRow> rejected) {

  public int rowsRead() {
    return rows.size();
  }

  public long endIndex() {
    return startIndex + rows.size();
  }

  /** Where encoded row {@code i} starts in {@link #bytes()}. */
  public int rowStart(int i) {
    return i == 0 ? 0 : rowEnds[i - 1];
  }
}
