package dev.pubsubclickhouse.backfill.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import java.util.List;

/**
 * A page encoded for the target table: row {@code i} is {@code bytes[rowStarts[i],
 * rowStarts[i+1])}, or, when {@code rejections[i]} is set, a row the encoder refused (empty bytes).
 *
 * @param startIndex the source position of the page's first row
 * @param rows the page's rows as read
 * @param encoder the encoder that made the bytes (so the writer can tell whether they still fit)
 */
public record EncodedPage(
    long startIndex,
    List<ObjectNode> rows,
    RowEncoder encoder,
    byte[] bytes,
    int[] rowStarts,
    String[] rejections) {

  public int rowsRead() {
    return rows.size();
  }

  public long endIndex() {
    return startIndex + rows.size();
  }
}
