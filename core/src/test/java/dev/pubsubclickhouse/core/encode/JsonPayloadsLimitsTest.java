package dev.pubsubclickhouse.core.encode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A payload that cannot be read is refused as a payload (the message goes to the dead-letter
 * table), never by an exception the caller does not expect. Found by PushFuzzIT: a number whose
 * exponent has more digits than BigDecimal takes escaped as NumberFormatException and the push was
 * answered by the handler's catch-all (503, redelivered until Pub/Sub dead-letters it).
 */
class JsonPayloadsLimitsTest {
  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aNumberWithAnExponentBeyondAnyRangeIsAPayloadError() {
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("{\"x\":1e92987364836286162198047}")))
        .isInstanceOf(PayloadRejectedException.class)
        .hasMessageStartingWith("payload has a number that cannot be read: ");
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("[{\"x\":7515465E49875839062492191944}]")))
        .isInstanceOf(PayloadRejectedException.class);
  }

  @Test
  void largeButReadableExponentsStillParse() throws Exception {
    assertThat(JsonPayloads.rows(bytes("{\"x\":1e400}")).get(0).get("x").decimalValue())
        .isEqualByComparingTo("1e400");
  }
}
