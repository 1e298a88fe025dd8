package dev.pubsubclickhouse.messages.payload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;

/**
 * What Avro's and protobuf-java's JSON decoders leave unchecked: they read the first value of the
 * text and stop, so that {@code {"a":1} {"a":2}} would be the first message alone.
 */
final class JsonText {
  /**
   * Jackson's default limits, deeper than JSON payloads': a union nests in an object of its own.
   */
  private static final JsonFactory FACTORY = new JsonFactory();

  private JsonText() {}

  /** True when the text, which a decoder has read one message from, holds nothing after it. */
  static boolean endsAfterOneValue(String text) {
    // A byte order mark, which the decoders skip (RFC 8259 lets them), is not content.
    String json = text.startsWith("\uFEFF") ? text.substring(1) : text;
    try (JsonParser parser = FACTORY.createParser(json)) {
      parser.nextToken();
      parser.skipChildren();
      return parser.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }
}
