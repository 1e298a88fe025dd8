package dev.pubsubclickhouse.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import java.util.List;

/**
 * Where a benchmark encodes its rows: one buffer, emptied before it grows past half a megabyte, so
 * that an operation costs the encoding and not the buffer's growth.
 */
final class RowBuffer {
  private final RowBinaryOutput out = new RowBinaryOutput(1 << 20);

  /** Encodes the rows; the buffer's size after them keeps JMH from dropping the work. */
  int encode(RowEncoder encoder, List<JsonNode> rows) throws RowRejectedException {
    if (out.size() > (1 << 19)) {
      out.reset();
    }
    for (JsonNode row : rows) {
      encoder.encode(row, out);
    }
    return out.size();
  }
}
