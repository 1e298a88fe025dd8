package dev.pubsubclickhouse.core.encode;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Checks bytes against the well-formed UTF-8 sequences of the Unicode standard (its table 3-7): no
 * overlong forms, no encoded surrogates, nothing above U+10FFFF. A JSON parser that decodes UTF-8
 * leniently reads {@code C0 AF} as {@code /}; this check runs first, so such data is refused rather
 * than stored changed.
 */
public final class Utf8Bytes {
  private Utf8Bytes() {}

  /** The offset of the first byte that does not begin a well-formed sequence, or -1. */
  public static int firstMalformed(byte[] bytes) {
    int i = 0;
    while (i < bytes.length) {
      if (bytes[i] >= 0) {
        i++;
        continue;
      }
      int lead = bytes[i] & 0xFF;
      int length;
      int secondMin = 0x80;
      int secondMax = 0xBF;
      if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
      } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        secondMin = lead == 0xE0 ? 0xA0 : 0x80; // below: overlong
        secondMax = lead == 0xED ? 0x9F : 0xBF; // above: a surrogate
      } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        secondMin = lead == 0xF0 ? 0x90 : 0x80; // below: overlong
        secondMax = lead == 0xF4 ? 0x8F : 0xBF; // above: past U+10FFFF
      } else {
        return i;
      }
      if (i + length > bytes.length) {
        return i;
      }
      int second = bytes[i + 1] & 0xFF;
      if (second < secondMin || second > secondMax) {
        return i;
      }
      for (int k = 2; k < length; k++) {
        if ((bytes[i + k] & 0xC0) != 0x80) {
          return i;
        }
      }
      i += length;
    }
    return -1;
  }

  /**
   * The text of the first {@code length} bytes, or empty when they are not UTF-8: {@code new
   * String(bytes, UTF_8)} would put U+FFFD in place of what does not decode, and store altered
   * text.
   */
  public static Optional<String> text(byte[] bytes, int length) {
    try {
      return Optional.of(
          StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes, 0, length)).toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }

  /**
   * {@code text} cut to at most {@code maxBytes} UTF-8 bytes at a character boundary, ending in
   * "..." when cut (the three dots count): a reason that must fit a Pub/Sub attribute or an HTTP
   * answer.
   */
  public static String clip(String text, int maxBytes) {
    if (text.getBytes(StandardCharsets.UTF_8).length <= maxBytes) {
      return text;
    }
    int budget = maxBytes - 3;
    int bytes = 0;
    int end = 0;
    while (end < text.length()) {
      int codePoint = text.codePointAt(end);
      int size = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8).length;
      if (bytes + size > budget) {
        break;
      }
      bytes += size;
      end += Character.charCount(codePoint);
    }
    return text.substring(0, end) + "...";
  }
}
