package dev.pubsubclickhouse.messages.payload;

import com.github.luben.zstd.ZstdInputStream;
import dev.pubsubclickhouse.messages.MemoryCharge;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Recognises gzip- and zstd-compressed message data by its magic bytes and decompresses it, up to a
 * cap so that a small message cannot expand into a large one. Other data passes through. The memory
 * the data expands into is charged chunk by chunk as it is produced ({@link MemoryCharge}): 559
 * bytes of zstd expand to 16 MiB, and sixteen of them at once must not all get that far.
 */
public final class PayloadDecompressor {
  private final int maxDecompressedBytes;

  public PayloadDecompressor(int maxDecompressedBytes) {
    this.maxDecompressedBytes = maxDecompressedBytes;
  }

  /**
   * The data decompressed, without counting its memory anywhere.
   *
   * @throws IOException when compressed data is corrupt or expands beyond the cap
   */
  public byte[] decompress(byte[] data) throws IOException {
    return decompress(data, MemoryCharge.NONE, 0);
  }

  /**
   * The data decompressed. What it expands into is charged as it is produced: the chunks, then the
   * whole array they are copied into; the chunks are given back once copied, and the array stays
   * charged. Besides, {@code advancePerByte} bytes are charged for each byte produced: the least
   * that reading the data will take per byte, so that a message whose rows will not fit is refused
   * after a few MiB of its data, not after 16.
   *
   * @throws IOException when compressed data is corrupt or expands beyond the cap
   * @throws MemoryCharge.Refusal when {@code charge} cannot take more; what it took stays charged
   *     until the caller gives it back
   */
  public byte[] decompress(byte[] data, MemoryCharge charge, int advancePerByte)
      throws IOException {
    if (isGzip(data)) {
      return gunzip(data, new Expansion(charge, advancePerByte, "gzip"));
    }
    if (isZstd(data)) {
      return readCapped(
          () -> new ZstdInputStream(new ByteArrayInputStream(data)),
          new Expansion(charge, advancePerByte, "zstd"));
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
  private byte[] gunzip(byte[] data, Expansion out) throws IOException {
    try {
      gunzipInto(data, out);
      return out.toArray();
    } finally {
      out.giveBackChunks();
    }
  }

  private void gunzipInto(byte[] data, Expansion out) throws IOException {
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
          out.write(buffer, read);
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

  private byte[] readCapped(Opener opener, Expansion out) throws IOException {
    InputStream in;
    try {
      in = opener.open();
    } catch (IOException | RuntimeException e) {
      throw corrupt(out.format, e);
    }
    try {
      byte[] buffer = new byte[16 * 1024];
      while (true) {
        int read;
        try {
          read = in.read(buffer);
        } catch (IOException | RuntimeException e) {
          throw corrupt(out.format, e);
        }
        if (read <= 0) {
          return out.toArray();
        }
        out.write(buffer, read);
      }
    } finally {
      out.giveBackChunks();
      in.close();
    }
  }

  private static IOException corrupt(String format, Exception e) {
    return new IOException("corrupt " + format + " data: " + e, e);
  }

  /**
   * The decompressed data so far, in chunks each charged before it is filled, up to the cap; then
   * copied whole into one array. A chunk grows with the data, so that a small message takes little.
   */
  private final class Expansion {
    private static final int LARGEST_CHUNK = 64 * 1024;

    private final MemoryCharge charge;
    private final int advancePerByte;
    private final String format;
    private final List<byte[]> chunks = new ArrayList<>();
    private long chunkBytes;
    private byte[] chunk = new byte[0];
    private int used;
    private long total;

    Expansion(MemoryCharge charge, int advancePerByte, String format) {
      this.charge = charge;
      this.advancePerByte = advancePerByte;
      this.format = format;
    }

    void write(byte[] buffer, int length) throws IOException {
      total += length;
      if (total > maxDecompressedBytes) {
        throw new IOException(format + " data expands beyond " + maxDecompressedBytes + " bytes");
      }
      charge.charge((long) length * advancePerByte);
      for (int at = 0; at < length; ) {
        if (used == chunk.length) {
          int size = (int) Math.min(LARGEST_CHUNK, Math.max(4096, chunkBytes));
          charge.charge(size);
          chunk = new byte[size];
          chunks.add(chunk);
          chunkBytes += size;
          used = 0;
        }
        int n = Math.min(length - at, chunk.length - used);
        System.arraycopy(buffer, at, chunk, used, n);
        used += n;
        at += n;
      }
    }

    /** The whole data in one array, charged. */
    byte[] toArray() {
      charge.charge(total);
      byte[] whole = new byte[(int) total];
      int at = 0;
      for (byte[] full : chunks) {
        int n = (int) Math.min(full.length, total - at);
        System.arraycopy(full, 0, whole, at, n);
        at += n;
      }
      return whole;
    }

    void giveBackChunks() {
      chunks.clear();
      chunk = null;
      charge.giveBack(chunkBytes);
      chunkBytes = 0;
    }
  }
}
