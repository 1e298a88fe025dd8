package dev.pubsubclickhouse.messages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * A dead letter's readable copy of compressed data is made outside any request's memory budget: a
 * small message that expands a thousandfold must not cost its expansion again there.
 */
class DeadLetterCopyTest {
  private final MessageEncoder encoder =
      new MessageEncoder(
          new PayloadDecompressor(16 << 20),
          new PayloadFormats(null),
          null,
          null,
          MessageEvents.NONE,
          Clock.systemUTC());

  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(data);
    }
    return out.toByteArray();
  }

  private DeadLetter deadLetter(byte[] data) {
    return encoder.deadLetter(
        PubSubMessage.builder().data(data).messageId("m-1").build(), "id", "why");
  }

  @Test
  void smallCompressedDataIsKeptDecompressed() throws Exception {
    byte[] text = "{\"n\":\"not a number\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(deadLetter(gzip(text)).payload()).isEqualTo(text);
  }

  @Test
  void dataThatExpandsFarBeyondItsSizeIsKeptAsPublished() throws Exception {
    byte[] bomb = gzip(new byte[1 << 20]);
    assertThat(bomb.length).isLessThan(2048);
    DeadLetter letter = deadLetter(bomb);
    assertThat(letter.payload()).isEqualTo(bomb);
    assertThat(letter.data()).isEqualTo(bomb);
  }
}
