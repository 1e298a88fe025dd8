package dev.pubsubclickhouse.backfill.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.backfill.source.Page;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/** Encodes pages with the core encoder. One per encoding thread (it sizes buffers by the last). */
public final class PageEncoder {
  private final RowEncoder encoder;
  private final Clock clock;
  private int lastSize = 1 << 16;

  public PageEncoder(RowEncoder encoder, Clock clock) {
    this.encoder = encoder;
    this.clock = clock;
  }

  public EncodedPage encode(Page page) {
    List<ObjectNode> rows = page.rows();
    int count = rows.size();
    // Sized like the last page so a page of similar rows never grows the buffer.
    RowBinaryOutput out = new RowBinaryOutput(lastSize + lastSize / 8);
    int[] ends = new int[count];
    int[] offsets = new int[count];
    int encoded = 0;
    List<RejectedRow> rejected = new ArrayList<>(0);
    for (int i = 0; i < count; i++) {
      ObjectNode row = rows.get(i);
      try {
        encoder.encode(row, out);
        ends[encoded] = out.size();
        offsets[encoded] = i;
        encoded++;
      } catch (RowRejectedException e) {
        rejected.add(
            new RejectedRow(
                page.startIndex() + i, row.toString(), e.getMessage(), clock.instant()));
      }
    }
    lastSize = Math.max(1024, out.size());
    return new EncodedPage(page.startIndex(), rows, out, ends, offsets, encoded, rejected);
  }
}
