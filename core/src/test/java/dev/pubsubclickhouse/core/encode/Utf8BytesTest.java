package dev.pubsubclickhouse.core.encode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link Utf8Bytes} against the JDK's strict UTF-8 decoder, on the edges and on random bytes. */
class Utf8BytesTest {

  /** The oracle: the JDK's UTF-8 decoder, reporting every malformed sequence. */
  private static boolean jdkAccepts(byte[] bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      decoder.decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  @Test
  void everyOneToFourByteSequenceIsJudgedAsTheJdkJudgesIt() {
    int[] interesting = {
      0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
      0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFF
    };
    int judged = 0;
    for (int a : interesting) {
      for (int b : interesting) {
        for (int c : interesting) {
          for (int d : interesting) {
            byte[] bytes = {(byte) a, (byte) b, (byte) c, (byte) d};
            boolean valid = Utf8Bytes.firstMalformed(bytes) < 0;
            assertThat(valid).as("%02X %02X %02X %02X", a, b, c, d).isEqualTo(jdkAccepts(bytes));
            judged++;
          }
        }
      }
    }
    assertThat(judged).isEqualTo(26 * 26 * 26 * 26);
  }

  @Test
  void randomTextWithFaultsIsJudgedAsTheJdkJudgesIt() {
    SplittableRandom random = new SplittableRandom(42);
    int faulty = 0;
    for (int i = 0; i < 20_000; i++) {
      StringBuilder text = new StringBuilder();
      for (int k = random.nextInt(12); k > 0; k--) {
        int codePoint = random.nextInt(4) == 0 ? random.nextInt(0x80) : random.nextInt(0x110000);
        if (codePoint < 0xD800 || codePoint > 0xDFFF) {
          text.appendCodePoint(codePoint);
        }
      }
      byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
      if (bytes.length > 0 && random.nextBoolean()) {
        bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
      }
      boolean accepted = jdkAccepts(bytes);
      assertThat(Utf8Bytes.firstMalformed(bytes) < 0).as(text.toString()).isEqualTo(accepted);
      faulty += accepted ? 0 : 1;
    }
    assertThat(faulty).as("the faults made some of the texts malformed").isGreaterThan(1000);
  }

  @Test
  void aFourByteCharacterIsNeverCutInHalf() {
    assertThat(Utf8Bytes.clip("\uD83D\uDE00".repeat(300), 1024))
        .isEqualTo("\uD83D\uDE00".repeat(255) + "...");
  }

  @Test
  void textThatFitsIsKeptAsItIs() {
    String fits = "\u00e9".repeat(512); // 1,024 bytes
    assertThat(Utf8Bytes.clip(fits, 1024)).isSameAs(fits);
    assertThat(Utf8Bytes.clip(fits + "x", 1024)).isEqualTo("\u00e9".repeat(510) + "...");
  }
}
