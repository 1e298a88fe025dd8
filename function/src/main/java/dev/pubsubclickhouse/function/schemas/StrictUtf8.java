package dev.pubsubclickhouse.function.schemas;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Text from bytes that must be UTF-8. {@code new String(bytes, UTF_8)} and the decoders' own
 * strings replace bytes that are not UTF-8 with U+FFFD, which would store altered text; here they
 * make the text absent, so that the message is dead-lettered instead.
 */
final class StrictUtf8 {
  private StrictUtf8() {}

  /** The text of the first {@code length} bytes; empty when they are not UTF-8. */
  static Optional<String> decode(byte[] bytes, int length) {
    try {
      return Optional.of(
          StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes, 0, length)).toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }
}
