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

  @Test
  void anArrayOfMoreRowsThanTheLimitIsRefusedBeforeItsTreeIsBuilt() throws Exception {
    String row = "{\"a\":1}";
    String atLimit =
        "[" + String.join(",", java.util.Collections.nCopies(JsonPayloads.MAX_ROWS, row)) + "]";
    assertThat(JsonPayloads.rows(bytes(atLimit))).hasSize(JsonPayloads.MAX_ROWS);
    // 2 MB of empty objects: the tree and the rows' metadata needed more than a 256 MiB heap.
    String empties = "[" + "{},".repeat(700_000) + "{}]";
    assertThatThrownBy(() -> JsonPayloads.rows(bytes(empties)))
        .isInstanceOf(PayloadRejectedException.class)
        .hasMessage("payload has more than 10000 rows (JSON array elements)");
  }

  @Test
  void anObjectOfMoreTokensThanTheLimitIsRefused() {
    StringBuilder wide = new StringBuilder("{");
    for (int i = 0; i < JsonPayloads.MAX_TOKENS / 2 + 1; i++) {
      wide.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":1");
    }
    assertThatThrownBy(() -> JsonPayloads.rows(bytes(wide.append('}').toString())))
        .isInstanceOf(PayloadRejectedException.class)
        .hasMessageStartingWith("payload exceeds a JSON limit: Token count (1000001) exceeds");
  }

  @Test
  void theArrayFormKeepsEveryOtherRuleOfTheWholeDocument() throws Exception {
    assertThat(JsonPayloads.rows(bytes(" [ {\"a\":1} , {\"b\":[2]} ] ")))
        .extracting(Object::toString)
        .containsExactly("{\"a\":1}", "{\"b\":[2]}");
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("[{\"a\":1}] {}")))
        .hasMessage("payload is not valid JSON: trailing content after the array");
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("{\"a\":1} {}")))
        .hasMessageStartingWith("payload is not valid JSON: Trailing token");
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("[{\"a\":1},null]")))
        .hasMessage("element 1 of the payload array is null, not an object");
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("[{\"a\":1},")))
        .hasMessageStartingWith("payload is not valid JSON: Unexpected end-of-input");
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("[]")))
        .hasMessage("payload is an empty JSON array: no rows");
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("  "))).hasMessage("payload is empty");
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("\"text\"")))
        .hasMessage("payload must be a JSON object or an array of objects, got a string");
  }

  @Test
  void aKeyTwiceInOneObjectIsRefusedNotResolvedToOneOfItsValues() {
    // ClickHouse refuses a column given twice in a JSONEachRow row, and keeps both entries of a
    // Map; keeping the last value silently matched neither.
    assertThatThrownBy(
            () -> JsonPayloads.rows(bytes("{\"id\":1,\"s\":\"first\",\"s\":\"second\"}")))
        .isInstanceOf(PayloadRejectedException.class)
        .hasMessage("payload is not valid JSON: Duplicate field 's'");
    assertThatThrownBy(() -> JsonPayloads.rows(bytes("[{\"m\":{\"a\":1,\"a\":2}}]")))
        .hasMessage("payload is not valid JSON: Duplicate field 'a'");
  }

  @Test
  void overlongFormsEncodedSurrogatesAndBytesPastUnicodeAreNotUtf8() {
    // C1 81 C0 AF is an overlong "A/": a lenient decoder stored it as A/.
    byte[] overlong = {
      '{', '"', 's', '"', ':', '"', (byte) 0xC1, (byte) 0x81, (byte) 0xC0, (byte) 0xAF, '"', '}'
    };
    assertThatThrownBy(() -> JsonPayloads.rows(overlong))
        .isInstanceOf(PayloadRejectedException.class)
        .hasMessage("payload is not UTF-8: byte 6 (0xC1) does not begin a valid sequence");
    byte[] surrogate = {
      '{', '"', 's', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'
    };
    assertThatThrownBy(() -> JsonPayloads.rows(surrogate))
        .hasMessage("payload is not UTF-8: byte 6 (0xED) does not begin a valid sequence");
  }
}
