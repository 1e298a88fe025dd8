package dev.pubsubclickhouse.messages.payload;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Recognises gzip- and zstd-compressed message data by its magic bytes and decompresses it, up to a
 * cap so that a small message cannot expand into a large one. Other data passes through.
 */
public final class PayloadDecompressor {
  private final int maxDecompressedBytes;

  public PayloadDecompressor(int maxDecompressedBytes) {
    this.maxDecompressedBytes = maxDecompressedBytes;
  }

  /**
   * @throws IOException when compressed data is corrupt or expands beyond the cap
   */
  public byte[] decompress(byte[] data) throws IOException {
    if (isGzip(data)) {
      return gunzip(data);
    }
    if (isZstd(data)) {
      return readCapped(() -> new ZstdInputStream(new ByteArrayInputStream(data)), "zstd");
    }
    return data;
  }

  /** Opens a decompressing stream; opening already reads (and checks) the format's header. */
  private interface Opener {
    InputStream open() throws IOException;
  }

  static boolean isGzip(byte[] data) {
    return data.length >= 2 && (data[0] & 0xFF) == 0x1F && (data[1] & 0xFF) == 0x8B;
  }

  static boolean isZstd(byte[] data) {
    return data.length >= 4
        && (data[0] & 0xFF) == 0x28
        && (data[1] & 0xFF) == 0xB5
        && (data[2] & 0xFF) == 0x2F
        && (data[3] & 0xFF) == 0xFD;
  }

  /**
   * Every gzip member of {@code data}, checked to its last byte: {@code GZIPInputStream} ends
   * quietly at bytes after a member that do not start another, and so stored what came before them
   * as the whole message.
   */
  private byte[] gunzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[16 * 1024];
    int at = 0;
    do {
      at = afterGzipHeader(data, at);
      Inflater inflater = new Inflater(true);
      CRC32 crc = new CRC32();
      long memberBytes = 0;
      try {
        inflater.setInput(data, at, data.length - at);
        while (!inflater.finished()) {
          int read = inflater.inflate(buffer);
          if (read == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
            throw new IOException("corrupt gzip data: it ends inside a member");
          }
          crc.update(buffer, 0, read);
          memberBytes += read;
          out.write(buffer, 0, read);
          if (out.size() > maxDecompressedBytes) {
            throw new IOException("gzip data expands beyond " + maxDecompressedBytes + " bytes");
          }
        }
        at = data.length - inflater.getRemaining();
      } catch (DataFormatException e) {
        throw new IOException("corrupt gzip data: " + e.getMessage(), e);
      } finally {
        inflater.end();
      }
      if (at + 8 > data.length
          || littleEndianInt(data, at) != (int) crc.getValue()
          || littleEndianInt(data, at + 4) != (int) memberBytes) {
        throw new IOException("corrupt gzip data: a member's trailer is missing or does not match");
      }
      at += 8;
    } while (at < data.length);
    return out.toByteArray();
  }

  /** Where a member's compressed data starts (RFC 1952: the fixed header and its options). */
  private static int afterGzipHeader(byte[] data, int start) throws IOException {
    if (start + 10 > data.length
        || (data[start] & 0xFF) != 0x1F
        || (data[start + 1] & 0xFF) != 0x8B
        || data[start + 2] != 8) {
      throw noHeaderAt(start);
    }
    int flags = data[start + 3];
    int at = start + 10;
    if ((flags & 4) != 0) { // FEXTRA: a length and that many bytes
      at = at + 2 > data.length ? data.length + 1 : at + 2 + littleEndianShort(data, at);
    }
    for (int zeroTerminated : new int[] {8, 16}) { // FNAME, FCOMMENT
      if ((flags & zeroTerminated) != 0) {
        while (at < data.length && data[at] != 0) {
          at++;
        }
        at++;
      }
    }
    if ((flags & 2) != 0) { // FHCRC
      at += 2;
    }
    if (at > data.length) {
      throw noHeaderAt(start);
    }
    return at;
  }

  private static IOException noHeaderAt(int start) {
    return new IOException(
        "corrupt gzip data: "
            + (start == 0 ? "no complete header" : "bytes after a member that start no other"));
  }

  private static int littleEndianShort(byte[] data, int at) {
    return (data[at] & 0xFF) | (data[at + 1] & 0xFF) << 8;
  }

  private static int littleEndianInt(byte[] data, int at) {
    return littleEndianShort(data, at) | littleEndianShort(data, at + 2) << 16;
  }

  private byte[] readCapped(Opener opener, String format) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[16 * 1024];
    long total = 0;
    try (InputStream in = opener.open()) {
      for (int read; total <= maxDecompressedBytes && (read = in.read(buffer)) > 0; ) {
        total += read;
        out.write(buffer, 0, read);
      }
    } catch (IOException | RuntimeException e) {
      throw new IOException("corrupt " + format + " data: " + e, e);
    }
    if (total > maxDecompressedBytes) {
      throw new IOException(format + " data expands beyond " + maxDecompressedBytes + " bytes");
    }
    return out.toByteArray();
  }
}
