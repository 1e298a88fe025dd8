package dev.pubsubclickhouse.messages.payload;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.core.encode.Utf8Bytes;
import dev.pubsubclickhouse.messages.MemoryCharge;
import java.util.List;

/**
 * What the formats read with a topic's schema share: binary or in the schema system's JSON
 * encoding, the heap their decoded data takes charged per byte of data before decoding starts, and
 * a rejection that names the schema.
 */
abstract class SchemaFormat implements PayloadFormat {
  /** Heap for a decoder's own state, whatever the size of the data. */
  private static final int DECODER_HEAP = 64 * 1024;

  /** The schema's resource name, which a rejection names. */
  final String resource;

  /** True for the binary encoding, false for the JSON one. */
  final boolean binary;

  private final int bytesPerDataByte;

  SchemaFormat(String resource, boolean binary, int bytesPerDataByte) {
    this.resource = resource;
    this.binary = binary;
    this.bytesPerDataByte = bytesPerDataByte;
  }

  @Override
  public final boolean binary() {
    return binary;
  }

  @Override
  public final List<JsonNode> rows(byte[] data) throws PayloadRejectedException {
    return rows(data, MemoryCharge.NONE);
  }

  @Override
  public final int leastHeapPerByte() {
    return bytesPerDataByte;
  }

  /** What the data is not when it is rejected, naming the schema; a reason follows it. */
  abstract String describe();

  /** Charges what decoding this data takes before it starts. */
  final void chargeDecoding(byte[] data, MemoryCharge memory) {
    memory.charge(bytesPerDataByte * data.length + DECODER_HEAP);
  }

  /**
   * @throws PayloadRejectedException when the data of a JSON encoding is not UTF-8
   */
  final String jsonText(byte[] data) throws PayloadRejectedException {
    return Utf8Bytes.text(data, data.length)
        .orElseThrow(() -> new PayloadRejectedException(describe() + ": the data is not UTF-8"));
  }

  /**
   * @throws PayloadRejectedException when the text holds more after the message a decoder read
   */
  final void requireOneMessage(String text) throws PayloadRejectedException {
    if (!JsonText.endsAfterOneValue(text)) {
      throw new PayloadRejectedException(describe() + ": content after the message");
    }
  }
}
