package dev.pubsubclickhouse.function.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class ProtobufFormatTest {
  private static byte[] hex(String bytes) {
    return HexFormat.ofDelimiter(" ").parseHex(bytes);
  }

  private static String rejection(PayloadFormat format, byte[] data) {
    try {
      format.rows(data);
    } catch (PayloadRejectedException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted " + data.length + " bytes");
  }

  @Test
  void proto2StringsThatAreNotUtf8AreRejectedAsProto3OnesAre() {
    for (String syntax : new String[] {"proto2", "proto3"}) {
      ProtobufFormat format =
          ProtobufFormat.of(
              "s", "syntax = \"" + syntax + "\";\nmessage M { optional string s = 1; }", true);
      assertThat(rejection(format, hex("0A 03 FF FE 41")))
          .as(syntax)
          .isEqualTo(
              "data does not decode as Protocol Buffers (binary) message M of schema s: Protocol"
                  + " message had invalid UTF-8.");
    }
  }

  @Test
  void jsonEncodedDataThatIsNotUtf8IsRejected() {
    ProtobufFormat format =
        ProtobufFormat.of("s", "syntax = \"proto3\";\nmessage M { string s = 1; }", false);
    assertThat(rejection(format, hex("7B 22 73 22 3A 22 C3 28 22 7D")))
        .isEqualTo(
            "data does not decode as Protocol Buffers (JSON) message M of schema s: the data is"
                + " not UTF-8");
  }
}
