package dev.pubsubclickhouse.function.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import java.io.ByteArrayOutputStream;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class AvroFormatTest {
  private static final String NODE =
      """
      {"type":"record","name":"Node","fields":[
        {"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}""";

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

  /** A list of {@code nodes} Nodes of value 0, binary: each a 0 and the union's branch. */
  private static byte[] nodes(int nodes) {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    for (int i = 1; i < nodes; i++) {
      data.writeBytes(hex("00 02"));
    }
    data.writeBytes(hex("00 00"));
    return data.toByteArray();
  }

  @Test
  void dataNestedDeeperThanJsonPayloadsMayNestIsRejected() throws Exception {
    int limit = JsonPayloads.MAX_NESTING_DEPTH;
    AvroFormat format = AvroFormat.of("s", NODE, true);
    assertThat(format.rows(nodes(limit)).get(0).toString())
        .isEqualTo(
            "{\"v\":0,\"next\":".repeat(limit - 1)
                + "{\"v\":0,\"next\":null}"
                + "}".repeat(limit - 1));
    String deeper =
        "data does not decode as Avro (binary) of schema s: nested deeper than 200 levels";
    assertThat(rejection(format, nodes(limit + 1))).isEqualTo(deeper);
    assertThat(rejection(format, nodes(5_000))).as("no StackOverflowError").isEqualTo(deeper);
  }
}
