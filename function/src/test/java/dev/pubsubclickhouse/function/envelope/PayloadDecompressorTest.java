package dev.pubsubclickhouse.function.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class PayloadDecompressorTest {
  private final PayloadDecompressor decompressor = new PayloadDecompressor(1024);
  private final byte[] json = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(data);
    }
    return out.toByteArray();
  }

  @Test
  void plainDataPassesThrough() throws Exception {
    assertThat(decompressor.decompress(json)).isSameAs(json);
  }

  @Test
  void gzipAndZstdAreRecognisedByTheirMagicBytes() throws Exception {
    assertThat(decompressor.decompress(gzip(json))).isEqualTo(json);
    assertThat(decompressor.decompress(Zstd.compress(json))).isEqualTo(json);
  }

  @Test
  void expansionBeyondTheCapIsRefused() throws Exception {
    byte[] zeros = new byte[1025];
    assertThatThrownBy(() -> decompressor.decompress(gzip(zeros)))
        .hasMessage("gzip data expands beyond 1024 bytes");
    assertThatThrownBy(() -> decompressor.decompress(Zstd.compress(zeros)))
        .hasMessage("zstd data expands beyond 1024 bytes");
    assertThat(decompressor.decompress(gzip(new byte[1024]))).hasSize(1024);
  }

  @Test
  void corruptCompressedDataIsRefusedWithAReason() throws Exception {
    byte[] truncated = Arrays.copyOf(gzip(json), 12);
    assertThatThrownBy(() -> decompressor.decompress(truncated))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("corrupt gzip data: ");
  }
}
