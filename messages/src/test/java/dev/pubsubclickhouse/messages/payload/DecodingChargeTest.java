package dev.pubsubclickhouse.messages.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.messages.MemoryCharge;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Avro and Protocol Buffers items can take no bytes or two (an empty record, an empty message), so
 * the rows of a small message can be large: the decoders charge their nodes as they make them, and
 * a charge that does not fit stops the decoding as it is, not as a data error.
 */
class DecodingChargeTest {
  private static final int ITEMS = 100_000;

  private static void varint(ByteArrayOutputStream out, long value) {
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }

  /** An array of ITEMS empty records (no bytes each) and a string of ITEMS bytes to make room. */
  private static final String AVRO =
      "{\"type\":\"record\",\"name\":\"R\",\"fields\":["
          + "{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":"
          + "{\"type\":\"record\",\"name\":\"E\",\"fields\":[]}}},"
          + "{\"name\":\"pad\",\"type\":\"string\"}]}";

  private static byte[] avroData() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    varint(out, (long) ITEMS << 1);
    varint(out, 0);
    varint(out, (long) ITEMS << 1);
    out.writeBytes(new byte[ITEMS]);
    return out.toByteArray();
  }

  private static final String PROTO =
      "syntax = \"proto3\";\nmessage M { message E {} repeated E e = 1; }\n";

  private static byte[] protoData() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < ITEMS; i++) {
      out.write(0x0A);
      out.write(0);
    }
    return out.toByteArray();
  }

  @Test
  void anAvroArrayOfEmptyRecordsIsChargedWhatItsItemsTake() throws Exception {
    ChargeLimit charges = new ChargeLimit(Long.MAX_VALUE);
    assertThat(AvroFormat.of("s", AVRO, true).rows(avroData(), charges).get(0).get("a").size())
        .isEqualTo(ITEMS);
    // Measured: 172 bytes an item, the decoder's record and the row's object.
    assertThat(charges.held).isGreaterThanOrEqualTo(172L * ITEMS);
  }

  @Test
  void aProtobufArrayOfEmptyMessagesIsChargedWhatItsItemsTake() throws Exception {
    ChargeLimit charges = new ChargeLimit(Long.MAX_VALUE);
    assertThat(
            ProtobufFormat.of("s", PROTO, true).rows(protoData(), charges).get(0).get("e").size())
        .isEqualTo(ITEMS);
    // Measured: 85 bytes an item.
    assertThat(charges.held).isGreaterThanOrEqualTo(85L * ITEMS);
  }

  @Test
  void aChargeThatDoesNotFitStopsTheDecodingAsItIs() {
    assertThatThrownBy(
            () -> AvroFormat.of("s", AVRO, true).rows(avroData(), new ChargeLimit(1 << 20)))
        .isInstanceOf(MemoryCharge.Refusal.class);
    assertThatThrownBy(
            () -> ProtobufFormat.of("s", PROTO, true).rows(protoData(), new ChargeLimit(1 << 20)))
        .isInstanceOf(MemoryCharge.Refusal.class);
  }
}
