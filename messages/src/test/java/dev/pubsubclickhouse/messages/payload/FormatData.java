package dev.pubsubclickhouse.messages.payload;

import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import java.util.HexFormat;

/** Message data written out byte by byte, and what a format says when it refuses it. */
final class FormatData {
  private FormatData() {}

  /** Bytes from hex pairs separated by spaces: {@code "0A 03 FF"}. */
  static byte[] hex(String bytes) {
    return HexFormat.ofDelimiter(" ").parseHex(bytes);
  }

  /** Why {@code format} refuses {@code data}; fails the test when it accepts it. */
  static String rejection(PayloadFormat format, byte[] data) {
    try {
      format.rows(data);
    } catch (PayloadRejectedException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted " + data.length + " bytes");
  }
}
