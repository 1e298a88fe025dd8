package dev.pubsubclickhouse.core.encode;

import static dev.pubsubclickhouse.core.encode.Rows.oneColumn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A zero written with a minus sign keeps it, as ClickHouse's own JSON reading does: a float column
 * stores -0.0 and a String column the sign. The parser reads numbers as int and BigDecimal, which
 * have no negative zero, so every value here is read by {@link JsonPayloads}, as a payload is.
 */
class NegativeZeroTest {
  /** The value bytes of a one-column row read from a payload, without the "not DEFAULT" byte. */
  private static byte[] valueBytes(String type, String jsonValue) throws Exception {
    byte[] payload = ("{\"v\":" + jsonValue + "}").getBytes(StandardCharsets.UTF_8);
    RowBinaryOutput out = new RowBinaryOutput();
    oneColumn(type).encode(JsonPayloads.rows(payload).get(0), out);
    byte[] row = out.toByteArray();
    return Arrays.copyOfRange(row, 1, row.length);
  }

  private static ByteBuffer littleEndian(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  @ParameterizedTest(name = "Float64 stores {0} as -0.0")
  @ValueSource(strings = {"-0", "-0.0", "-0.000", "-0e5", "-0E-3"})
  void aFloat64StoresNegativeZero(String value) throws Exception {
    assertThat(littleEndian(valueBytes("Float64", value)).getLong())
        .isEqualTo(Double.doubleToRawLongBits(-0.0));
  }

  @ParameterizedTest(name = "Float32 stores {0} as -0.0")
  @ValueSource(strings = {"-0", "-0.0", "-0.000", "-0e5", "-0E-3"})
  void aFloat32StoresNegativeZero(String value) throws Exception {
    assertThat(littleEndian(valueBytes("Float32", value)).getInt())
        .isEqualTo(Float.floatToRawIntBits(-0.0f));
  }

  @ParameterizedTest(name = "a positive zero {0} stays positive")
  @ValueSource(strings = {"0", "0.0", "0e5", "0.000"})
  void aZeroWithoutMinusSignStaysPositive(String value) throws Exception {
    assertThat(littleEndian(valueBytes("Float64", value)).getLong()).isZero();
  }

  @ParameterizedTest(name = "{0} in containers: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Nullable(Float64)|-0.0|00 0000000000000080",
        "Array(Float64)|[-0, 0, -0.0]|03 0000000000000080 0000000000000000 0000000000000080",
        "Map(String, Float32)|{\"k\": -0e5}|01 016B 00000080",
        "Tuple(Float64, String)|[-0.0, \"x\"]|0000000000000080 0178",
      })
  void containersKeepTheSign(String type, String value, String hex) throws Exception {
    assertThat(valueBytes(type, value))
        .containsExactly(HexFormat.of().parseHex(hex.replace(" ", "")));
  }

  /** ClickHouse keeps the text as written, and so do we. */
  @ParameterizedTest(name = "String stores {0} as {1}")
  @CsvSource({"-0, -0", "-0.0, -0.0", "-0.000, -0.000", "-0e5, -0e5", "-0.00000000, -0.00000000"})
  void aStringKeepsTheSign(String value, String text) throws Exception {
    assertThat(valueBytes("String", value)).containsExactly(lengthPrefixed(text));
    assertThat(valueBytes("String", "[" + value + "]"))
        .containsExactly(lengthPrefixed("[" + text + "]"));
  }

  @ParameterizedTest(name = "JSON keeps the sign of {0}")
  @ValueSource(strings = {"{\"a\": -0.0, \"b\": [-0]}", "\"{\\\"a\\\": -0.0, \\\"b\\\": [-0]}\""})
  void aJsonColumnKeepsTheSign(String value) throws Exception {
    assertThat(valueBytes("JSON", value))
        .containsExactly(lengthPrefixed("{\"a\":-0.0,\"b\":[-0]}"));
  }

  /** Decimal and integer types have no negative zero: ClickHouse stores 0, and so do we. */
  @ParameterizedTest(name = "{0} stores {1} as 0")
  @CsvSource(
      delimiter = '|',
      value = {
        "Decimal(9, 2)|-0|00000000",
        "Decimal(9, 2)|-0.000|00000000",
        "Decimal(9, 2)|-0e5|00000000",
        "Int32|-0|00000000",
        "UInt8|-0|00",
      })
  void exactTypesStoreZero(String type, String value, String hex) throws Exception {
    assertThat(valueBytes(type, value)).containsExactly(HexFormat.of().parseHex(hex));
  }

  /** ClickHouse reads a Bool from the numbers 0 and 1 as written, and refuses -0; so do we. */
  @ParameterizedTest(name = "{0} rejects -0")
  @ValueSource(strings = {"Bool", "Nullable(Bool)", "Array(Bool)"})
  void aBoolRejectsNegativeZero(String type) {
    String value = type.startsWith("Array") ? "[-0]" : "-0";
    assertThatThrownBy(() -> valueBytes(type, value))
        .isInstanceOf(RowRejectedException.class)
        .hasMessageContaining("expected true, false, 0 or 1");
  }

  /**
   * The service puts numbers into a row after the parse (_pubsub_row_index 0 for a message's first
   * row, _pubsub_delivery_attempt 0 when Pub/Sub sends none), through the row's node factory. The
   * parser is closed then and stands on no token: such a zero is a plain zero, and no exception.
   */
  @ParameterizedTest(name = "a zero put into a row of {0} after the parse")
  @ValueSource(strings = {"{\"v\": 1}", "[{\"v\": -0}, {\"v\": -0.0}]", "{\"v\": -0}"})
  void aZeroPutIntoARowAfterTheParseIsAPlainZero(String payload) throws Exception {
    for (JsonNode row : JsonPayloads.rows(payload.getBytes(StandardCharsets.UTF_8))) {
      ObjectNode object = (ObjectNode) row;
      object.put("_pubsub_row_index", 0);
      object.put("decimal", BigDecimal.ZERO);
      assertThat(object.get("_pubsub_row_index")).isEqualTo(IntNode.valueOf(0));
      assertThat(object.get("decimal")).isEqualTo(DecimalNode.valueOf(BigDecimal.ZERO));
    }
  }

  /** A length-prefixed UTF-8 string of at most 127 bytes, as RowBinary writes it. */
  private static byte[] lengthPrefixed(String text) {
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[utf8.length + 1];
    out[0] = (byte) utf8.length;
    System.arraycopy(utf8, 0, out, 1, utf8.length);
    return out;
  }
}
