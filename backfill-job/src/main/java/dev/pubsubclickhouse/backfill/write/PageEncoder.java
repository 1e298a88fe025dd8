package dev.pubsubclickhouse.backfill.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.backfill.source.Page;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import java.util.List;

/** Encodes pages with the core encoder. One per encoding thread (it sizes buffers by the last). */
public final class PageEncoder {
  private final RowEncoder encoder;
  private int lastSize = 1 << 16;

  public PageEncoder(RowEncoder encoder) {
    this.encoder = encoder;
  }

  public EncodedPage encode(Page page) {
    return encode(page.startIndex(), null, page.rows());
  }

  /** Rows at the given positions, e.g. rows refused by an earlier run. */
  public EncodedPage encode(long[] positions, List<ObjectNode> rows) {
    return encode(positions[0], positions, rows);
  }

  private EncodedPage encode(long startIndex, long[] positions, List<ObjectNode> rows) {
    int count = rows.size();
    // Sized like the last page so a page of similar rows never grows the buffer.
    RowBinaryOutput out = new RowBinaryOutput(lastSize + lastSize / 8);
    int[] starts = new int[count + 1];
    String[] rejections = new String[count];
    for (int i = 0; i < count; i++) {
      int start = out.size();
      try {
        encoder.encode(rows.get(i), out);
      } catch (RowRejectedException e) {
        rejections[i] = e.getMessage();
      } catch (RuntimeException e) {
        // An encoder that fails unexpectedly rejects this row, not the page.
        out.truncate(start);
        rejections[i] = "the row could not be encoded: " + e;
      }
      starts[i + 1] = out.size();
    }
    lastSize = Math.max(1024, out.size());
    return EncodedPage.builder()
        .startIndex(startIndex)
        .positions(positions)
        .rows(rows)
        .encoder(encoder)
        .bytes(out.toByteArray())
        .rowStarts(starts)
        .rejections(rejections)
        .build();
  }
}
