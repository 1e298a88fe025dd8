package dev.pubsubclickhouse.core.encode;

import static dev.pubsubclickhouse.core.encode.Rows.oneColumn;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A number whose exponent is near Integer.MAX_VALUE has more integer digits than an int can count:
 * BigDecimal's precision() - scale() overflows to a negative count, which read as "no integer
 * digits" would store such a number as zero (or as the epoch) instead of refusing it as out of
 * range.
 */
class HugeExponentTest {
  private static void encode(String type, String number) throws Exception {
    byte[] payload = ("{\"v\":" + number + "}").getBytes(StandardCharsets.UTF_8);
    oneColumn(type).encode(JsonPayloads.rows(payload).get(0), new RowBinaryOutput());
  }

  @ParameterizedTest(name = "{0} refuses {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Decimal(9, 2)|1e2147483647",
        "Decimal(9, 2)|-1e2147483647",
        "Decimal(38, 10)|12e2147483647",
        "Decimal(76, 20)|1e2147483647",
        "DateTime('UTC')|1e2147483647",
        "DateTime('UTC')|12e2147483647",
        "DateTime64(3, 'UTC')|1e2147483647",
        "DateTime64(3, 'UTC')|-1e2147483647",
        "Decimal(9, 2)|\"1e2147483647\"",
        "DateTime('UTC')|\"1e2147483647\"",
        "Int64|1e2147483647",
        "Int256|-1e2147483647",
        "Enum8('a' = 1)|1e2147483647",
      })
  void aNumberWithAHugeExponentIsOutOfRange(String type, String number) {
    assertThatThrownBy(() -> encode(type, number))
        .isInstanceOf(RowRejectedException.class)
        .hasMessageMatching(".*(does not fit|out of range|not one of the enum).*");
  }
}
