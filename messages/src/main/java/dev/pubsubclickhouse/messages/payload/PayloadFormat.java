package dev.pubsubclickhouse.messages.payload;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
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

  /** A format that rejects every message, for a schema that cannot be used. */
  static PayloadFormat rejecting(String reason) {
    return data -> {
      throw new PayloadRejectedException(reason);
    };
  }
}
