package dev.pubsubclickhouse.messages.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Each semantic type against values computed by hand from Debezium's documented encodings, and
 * Decimals against BigDecimal's own reading of the decimal text across widths, scales and signs.
 */
class SemanticValuesTest {
  private static JsonNode schema(String name) {
    return JsonNodes.parse("{\"type\":\"int64\",\"name\":\"" + name + "\"}");
  }

  private static String decode(String name, JsonNode value) throws PayloadRejectedException {
    return SemanticValues.value(value, schema(name)).asText();
  }

  private static String decimal(String base64, int scale) throws PayloadRejectedException {
    JsonNode schema =
        JsonNodes.parse(
            "{\"type\":\"bytes\",\"name\":\"org.apache.kafka.connect.data.Decimal\","
                + "\"parameters\":{\"scale\":\""
                + scale
                + "\"}}");
    return SemanticValues.value(JsonNodes.text(base64), schema).asText();
  }

  @Test
  void decimalsAreBigEndianTwosComplementWithTheSchemasScale() throws Exception {
    assertThat(decimal("BNI=", 2)).isEqualTo("12.34"); // 0x04D2 = 1234
    assertThat(decimal("/w==", 0)).isEqualTo("-1"); // 0xFF
    assertThat(decimal("+y4=", 3)).isEqualTo("-1.234"); // 0xFB2E = -1234
    assertThat(decimal("AA==", 5)).isEqualTo("0.00000");
    assertThat(decimal("AIAAAAAAAAAA", 0)).isEqualTo("9223372036854775808"); // 2^63, 9 bytes
    assertThat(decimal("gAAAAAAAAAA=", 2)).isEqualTo("-92233720368547758.08"); // -2^63
    assertThat(decimal("AQ==", -2)).isEqualTo("100");
  }

  @Test
  void decimalsOfEveryWidthAndScaleReadBackExactly() throws Exception {
    Random random = new Random(7);
    for (int i = 0; i < 2000; i++) {
      BigInteger unscaled = new BigInteger(1 + random.nextInt(255), random);
      if (random.nextBoolean()) {
        unscaled = unscaled.negate();
      }
      int scale = random.nextInt(77);
      String base64 = Base64.getEncoder().encodeToString(unscaled.toByteArray());
      assertThat(new BigDecimal(decimal(base64, scale)))
          .as("unscaled %s scale %d", unscaled, scale)
          .isEqualTo(new BigDecimal(unscaled, scale));
    }
  }

  @Test
  void variableScaleDecimalsCarryTheirScale() throws Exception {
    JsonNode schema =
        JsonNodes.parse("{\"type\":\"struct\",\"name\":\"io.debezium.data.VariableScaleDecimal\"}");
    assertThat(
            SemanticValues.value(JsonNodes.parse("{\"scale\":3,\"value\":\"AeI=\"}"), schema)
                .asText())
        .isEqualTo("0.482"); // 0x01E2 = 482
  }

  @Test
  void datesAndTimesAreCountsFromTheEpochOrMidnight() throws Exception {
    assertThat(decode("io.debezium.time.Date", LongNode.valueOf(19000))).isEqualTo("2022-01-08");
    assertThat(decode("io.debezium.time.Date", LongNode.valueOf(-1))).isEqualTo("1969-12-31");
    assertThat(decode("org.apache.kafka.connect.data.Date", LongNode.valueOf(0)))
        .isEqualTo("1970-01-01");
    assertThat(decode("io.debezium.time.Time", LongNode.valueOf(3_723_004)))
        .isEqualTo("01:02:03.004");
    assertThat(decode("io.debezium.time.MicroTime", LongNode.valueOf(3_723_000_001L)))
        .isEqualTo("01:02:03.000001");
    assertThat(decode("io.debezium.time.NanoTime", LongNode.valueOf(86_399_999_999_999L)))
        .isEqualTo("23:59:59.999999999");
    assertThat(decode("io.debezium.time.Timestamp", LongNode.valueOf(1_700_000_000_123L)))
        .isEqualTo("2023-11-14T22:13:20.123Z");
    assertThat(decode("io.debezium.time.MicroTimestamp", LongNode.valueOf(1_700_000_000_123_456L)))
        .isEqualTo("2023-11-14T22:13:20.123456Z");
    assertThat(decode("io.debezium.time.MicroTimestamp", LongNode.valueOf(-1)))
        .isEqualTo("1969-12-31T23:59:59.999999Z");
    assertThat(decode("io.debezium.time.NanoTimestamp", LongNode.valueOf(1_000_000_001L)))
        .isEqualTo("1970-01-01T00:00:01.000000001Z");
    assertThat(decode("org.apache.kafka.connect.data.Timestamp", LongNode.valueOf(0)))
        .isEqualTo("1970-01-01T00:00:00Z");
    assertThat(
            decode("io.debezium.time.ZonedTimestamp", JsonNodes.text("2023-11-14T22:13:20+02:00")))
        .isEqualTo("2023-11-14T22:13:20+02:00");
  }

  @Test
  void postgresInfinityIsRefusedWithTheReason() {
    for (long infinity : new long[] {Long.MAX_VALUE, Long.MIN_VALUE}) {
      assertThatThrownBy(
              () -> decode("io.debezium.time.MicroTimestamp", LongNode.valueOf(infinity)))
          .isInstanceOf(PayloadRejectedException.class)
          .hasMessage(
              "io.debezium.time.MicroTimestamp "
                  + infinity
                  + " is Postgres' infinity or -infinity, which no ClickHouse date or time holds");
    }
    assertThatThrownBy(() -> decode("io.debezium.time.ZonedTimestamp", JsonNodes.text("infinity")))
        .hasMessageContaining("is Postgres' infinity or -infinity");
  }

  @Test
  void bitsAreLittleEndianAndTextKindsStayAsTheyAre() throws Exception {
    assertThat(decode("io.debezium.data.Bits", JsonNodes.text("AQI="))).isEqualTo("513");
    assertThat(decode("io.debezium.data.Bits", JsonNodes.text("/w=="))).isEqualTo("255");
    for (String name :
        new String[] {
          "io.debezium.data.Json",
          "io.debezium.data.Uuid",
          "io.debezium.data.Enum",
          "io.debezium.data.EnumSet",
          "io.debezium.time.ZonedTime"
        }) {
      assertThat(decode(name, JsonNodes.text("a,b"))).isEqualTo("a,b");
    }
  }

  @Test
  void arraysAreDecodedItemByItem() throws Exception {
    JsonNode schema =
        JsonNodes.parse(
            "{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"name\":\"io.debezium.time.Date\"}}");
    assertThat(SemanticValues.value(JsonNodes.parse("[0,1]"), schema).toString())
        .isEqualTo("[\"1970-01-01\",\"1970-01-02\"]");
  }
}
