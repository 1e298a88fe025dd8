package dev.pubsubclickhouse.messages.payload;

import static dev.pubsubclickhouse.messages.ByteArrays.concat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import dev.pubsubclickhouse.messages.MemoryCharge;
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

  @Test
  void everyMemberOfMultiMemberGzipIsRead() throws Exception {
    byte[] second = "{\"b\":2}".getBytes(StandardCharsets.UTF_8);
    assertThat(decompressor.decompress(concat(gzip(json), gzip(second))))
        .isEqualTo(concat(json, second));
  }

  @Test
  void bytesAfterTheLastMemberAreRefusedNotIgnored() throws Exception {
    // GZIPInputStream ends quietly at them, so the first member was stored as the whole message.
    byte[] garbage =
        "\u001f\u008b\u0008garbage-after-the-member".getBytes(StandardCharsets.ISO_8859_1);
    assertThatThrownBy(() -> decompressor.decompress(concat(gzip(json), garbage)))
        .isInstanceOf(IOException.class)
        .hasMessage("corrupt gzip data: bytes after a member that start no other");
    assertThatThrownBy(() -> decompressor.decompress(concat(gzip(json), new byte[] {0, 0})))
        .hasMessage("corrupt gzip data: bytes after a member that start no other");
  }

  @Test
  void aTruncatedSecondMemberIsCorruptGzipNotInvalidJson() throws Exception {
    byte[] second = gzip("{\"b\":2}".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(
            () ->
                decompressor.decompress(
                    concat(gzip(json), Arrays.copyOf(second, second.length - 4))))
        .hasMessage("corrupt gzip data: a member's trailer is missing or does not match");
    assertThatThrownBy(() -> decompressor.decompress(concat(gzip(json), Arrays.copyOf(second, 14))))
        .hasMessage("corrupt gzip data: it ends inside a member");
  }

  @Test
  void aMemberWhoseChecksumDoesNotMatchIsRefused() throws Exception {
    byte[] member = gzip(json);
    member[member.length - 8] ^= 1;
    assertThatThrownBy(() -> decompressor.decompress(member))
        .hasMessage("corrupt gzip data: a member's trailer is missing or does not match");
  }

  @Test
  void headerOptionsAreSkippedAsRfc1952Says() throws Exception {
    byte[] plain = gzip(json);
    // FEXTRA (2 bytes of extra), FNAME "n", FCOMMENT "c", FHCRC: then the same compressed data.
    byte[] header = Arrays.copyOf(plain, 10);
    header[3] = 4 | 8 | 16 | 2;
    byte[] withOptions =
        concat(
            header,
            new byte[] {2, 0, 'x', 'y'},
            new byte[] {'n', 0},
            new byte[] {'c', 0},
            new byte[] {0, 0},
            Arrays.copyOfRange(plain, 10, plain.length));
    assertThat(decompressor.decompress(withOptions)).isEqualTo(json);
  }

  @Test
  void aBombIsRefusedWhenWhatItExpandsIntoDoesNotFitNotOnceItHasExpanded() throws Exception {
    PayloadDecompressor large = new PayloadDecompressor(16 << 20);
    byte[] expanded = new byte[(16 << 20) - 1];
    for (byte[] bomb : new byte[][] {gzip(expanded), Zstd.compress(expanded)}) {
      ChargeLimit charges = new ChargeLimit(1 << 20);
      assertThatThrownBy(() -> large.decompress(bomb, charges, 6))
          .isInstanceOf(MemoryCharge.Refusal.class);
      assertThat(charges.most).isLessThanOrEqualTo(1 << 20);
    }
  }

  @Test
  void theDataStaysChargedTheChunksAreGivenBackAndTheAdvanceIsCharged() throws Exception {
    PayloadDecompressor large = new PayloadDecompressor(16 << 20);
    byte[] data = new byte[300_000];
    Arrays.fill(data, (byte) 'x');
    for (byte[] compressed : new byte[][] {gzip(data), Zstd.compress(data)}) {
      ChargeLimit charges = new ChargeLimit(Long.MAX_VALUE);
      assertThat(large.decompress(compressed, charges, 6)).isEqualTo(data);
      assertThat(charges.held).isEqualTo(7L * data.length);
      assertThat(charges.most).isGreaterThanOrEqualTo(8L * data.length);
    }
  }

  @Test
  void plainDataChargesNothing() throws Exception {
    ChargeLimit charges = new ChargeLimit(0);
    assertThat(decompressor.decompress(json, charges, 6)).isSameAs(json);
  }
}
