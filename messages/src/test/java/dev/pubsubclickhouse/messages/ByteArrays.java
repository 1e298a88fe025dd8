package dev.pubsubclickhouse.messages;

import java.io.ByteArrayOutputStream;

/** Byte arrays for tests that build message data and rows piece by piece. */
public final class ByteArrays {
  private ByteArrays() {}

  /** The parts one after another. */
  public static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }
}
