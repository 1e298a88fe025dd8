package dev.pubsubclickhouse.core.encode;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer that writes ClickHouse's RowBinary primitives (little-endian numbers,
 * LEB128 lengths, length-prefixed strings). A row that turns out not to fit is undone with {@link
 * #truncate(int)} back to the size taken before it.
 */
public final class RowBinaryOutput {
  private byte[] bytes;
  private int size;

  public RowBinaryOutput() {
    this(256);
  }

  public RowBinaryOutput(int initialCapacity) {
    bytes = new byte[Math.max(16, initialCapacity)];
  }

  public int size() {
    return size;
  }

  /** Forgets everything written after the first {@code newSize} bytes. */
  public void truncate(int newSize) {
    if (newSize < 0 || newSize > size) {
      throw new IllegalArgumentException("cannot truncate " + size + " bytes to " + newSize);
    }
    size = newSize;
  }

  public void reset() {
    size = 0;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(bytes, size);
  }

  /** Writes the bytes written so far to {@code out}. */
  public void writeTo(OutputStream out) throws IOException {
    out.write(bytes, 0, size);
  }

  public void writeByte(int value) {
    ensure(1);
    bytes[size++] = (byte) value;
  }

  public void writeBytes(byte[] value) {
    writeBytes(value, 0, value.length);
  }

  public void writeBytes(byte[] value, int offset, int length) {
    ensure(length);
    System.arraycopy(value, offset, bytes, size, length);
    size += length;
  }

  public void writeShortLE(int value) {
    ensure(2);
    bytes[size++] = (byte) value;
    bytes[size++] = (byte) (value >>> 8);
  }

  public void writeIntLE(int value) {
    ensure(4);
    bytes[size++] = (byte) value;
    bytes[size++] = (byte) (value >>> 8);
    bytes[size++] = (byte) (value >>> 16);
    bytes[size++] = (byte) (value >>> 24);
  }

  public void writeLongLE(long value) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      bytes[size++] = (byte) (value >>> (8 * i));
    }
  }

  /**
   * Writes {@code value} as a two's-complement little-endian integer of {@code width} bytes. The
   * caller has checked that it fits.
   */
  public void writeBigIntegerLE(BigInteger value, int width) {
    byte[] bigEndian = value.toByteArray();
    ensure(width);
    byte fill = value.signum() < 0 ? (byte) 0xFF : 0;
    for (int i = 0; i < width; i++) {
      int source = bigEndian.length - 1 - i;
      bytes[size++] = source >= 0 ? bigEndian[source] : fill;
    }
  }

  /** An unsigned LEB128 number, as RowBinary writes lengths. */
  public void writeVarUInt(long value) {
    ensure(10);
    while ((value & ~0x7FL) != 0) {
      bytes[size++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    bytes[size++] = (byte) value;
  }

  /** A LEB128 length followed by the UTF-8 bytes of {@code value}, encoded in place. */
  public void writeString(String value) {
    int length = value.length();
    int utf8Length = utf8Length(value);
    writeVarUInt(utf8Length);
    ensure(utf8Length);
    if (utf8Length == length) {
      for (int i = 0; i < length; i++) {
        bytes[size++] = (byte) value.charAt(i);
      }
    } else {
      byte[] encoded = value.getBytes(StandardCharsets.UTF_8);
      System.arraycopy(encoded, 0, bytes, size, encoded.length);
      size += encoded.length;
    }
  }

  /** A LEB128 length followed by the bytes. */
  public void writeLengthPrefixed(byte[] value) {
    writeVarUInt(value.length);
    writeBytes(value);
  }

  /** Number of bytes in the UTF-8 form of {@code value}; lone surrogates count as '?'. */
  static int utf8Length(String value) {
    int length = value.length();
    int count = length;
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      if (c >= 0x80) {
        if (c < 0x800) {
          count += 1;
        } else if (Character.isHighSurrogate(c)
            && i + 1 < length
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          count += 2;
          i++;
        } else if (Character.isSurrogate(c)) {
          // String.getBytes replaces a lone surrogate with '?', one byte.
        } else {
          count += 2;
        }
      }
    }
    return count;
  }

  private void ensure(int extra) {
    int needed = size + extra;
    if (needed > bytes.length) {
      if (needed < 0) {
        throw new OutOfMemoryError("RowBinary buffer over 2 GiB");
      }
      bytes = Arrays.copyOf(bytes, Math.max(needed, bytes.length * 2));
    }
  }
}
