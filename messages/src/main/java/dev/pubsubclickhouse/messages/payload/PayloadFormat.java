package dev.pubsubclickhouse.messages.payload;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.messages.MemoryCharge;
import java.util.List;

/**
 * How a message's data becomes rows: objects whose fields are matched to columns by name, with the
 * same type rules whatever the format.
 */
@FunctionalInterface
public interface PayloadFormat {
  /** A JSON object is one row, a JSON array of objects several. */
  PayloadFormat JSON = JsonPayloads::rows;

  /**
   * @throws PayloadRejectedException when the data does not decode: the message is dead-lettered
   *     with the reason
   */
  List<JsonNode> rows(byte[] data) throws PayloadRejectedException;

  /**
   * The rows, with the heap reading them takes charged to {@code memory}: by default the most a
   * JSON parse of this much data may take ({@link JsonPayloads#heapBound}), before it starts.
   *
   * @throws MemoryCharge.Refusal when {@code memory} cannot take it
   */
  default List<JsonNode> rows(byte[] data, MemoryCharge memory) throws PayloadRejectedException {
    memory.charge(JsonPayloads.heapBound(data.length));
    return rows(data);
  }

  /**
   * The least heap per byte of data that {@link #rows(byte[], MemoryCharge)} charges: a caller may
   * charge it ahead, as the data is decompressed, and have the reading's charges take it first.
   */
  default int leastHeapPerByte() {
    return JsonPayloads.LEAST_HEAP_PER_BYTE;
  }

  /**
   * True when the data is a binary encoding (Avro's or Protocol Buffers'), which is not text even
   * when its bytes happen to be UTF-8; false for JSON and the formats' JSON encodings.
   */
  default boolean binary() {
    return false;
  }

  /** A format that rejects every message, for a schema that cannot be used. */
  static PayloadFormat rejecting(String reason) {
    return data -> {
      throw new PayloadRejectedException(reason);
    };
  }
}
