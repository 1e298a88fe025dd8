package dev.pubsubclickhouse.function.envelope;

import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

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
      return readCapped(() -> new GZIPInputStream(new ByteArrayInputStream(data)), "gzip");
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
