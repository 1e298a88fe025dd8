package dev.pubsubclickhouse.backfill.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A row stored as text reads back as the same values, of the same JSON node types. */
class RowTextTest {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Test
  void everyValueTheReadersMakeReadsBackAsItWas() throws Exception {
    ObjectNode row = NODES.objectNode();
    row.set("i64", LongNode.valueOf(Long.MIN_VALUE));
    row.set("small", LongNode.valueOf(7));
    row.set("f", DoubleNode.valueOf(0.1 + 0.2));
    row.set("tiny", DoubleNode.valueOf(Double.MIN_VALUE));
    row.set("nan", DoubleNode.valueOf(Double.NaN));
    row.set("n", DecimalNode.valueOf(new BigDecimal("12345678901234567890.123456789")));
    row.set("scaled", DecimalNode.valueOf(new BigDecimal("1.50")));
    row.set("exponent", DecimalNode.valueOf(new BigDecimal("1E+2")));
    row.set("bn", DecimalNode.valueOf(new BigDecimal("0.00000000000000000000000000000000000001")));
    row.set("b", BooleanNode.TRUE);
    row.set("s", NODES.textNode("naïve ☃ [\"a\",\"x\"]"));
    row.set("by", BinaryNode.valueOf(new byte[] {0, 1, 2, (byte) 0xff}));
    row.set("nul", NODES.nullNode());
    row.set("arr", NODES.arrayNode().add(LongNode.valueOf(-1)).add(LongNode.valueOf(1)));
    row.set("texts", NODES.arrayNode().add("a").add("x"));
    row.set("empty", NODES.arrayNode());
    ObjectNode struct = NODES.objectNode();
    struct.set("x", LongNode.valueOf(7));
    struct.set("nested", NODES.arrayNode().add(NODES.arrayNode().add(DoubleNode.valueOf(2.5))));
    row.set("st", struct);

    ObjectNode back = RowText.read(RowText.write(row));

    assertSameValues(back, row);
    assertThat(back.get("scaled").decimalValue()).isEqualTo(new BigDecimal("1.50"));
    assertThat(back.get("by").binaryValue()).containsExactly(0, 1, 2, 0xff);
  }

  @Test
  void anIntegerBeyondALongStaysExact() {
    ObjectNode row = NODES.objectNode();
    row.set("big", NODES.numberNode(new BigInteger("123456789012345678901234567890")));

    ObjectNode back = RowText.read(RowText.write(row));

    assertThat(back.get("big").bigIntegerValue())
        .isEqualTo(new BigInteger("123456789012345678901234567890"));
  }

  @Test
  void textThatIsNoStoredRowIsRefusedWithAReason() {
    assertThatThrownBy(() -> RowText.read("[1,2]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a stored row");
    assertThatThrownBy(() -> RowText.read("{\"x\":[1,2]}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a stored value: [1,2]");
    assertThatThrownBy(() -> RowText.read("{\"x\":[\"q\",\"1\"]}"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RowText.read("{"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a stored row");
  }

  /** The same fields, in the same order, each of the same node type and value. */
  private static void assertSameValues(JsonNode actual, JsonNode expected) {
    assertThat(actual.getClass()).isEqualTo(expected.getClass());
    if (expected.isObject()) {
      assertThat(fieldNames(actual)).isEqualTo(fieldNames(expected));
      expected.fieldNames().forEachRemaining(n -> assertSameValues(actual.get(n), expected.get(n)));
    } else if (expected.isArray()) {
      assertThat(actual.size()).isEqualTo(expected.size());
      for (int i = 0; i < expected.size(); i++) {
        assertSameValues(actual.get(i), expected.get(i));
      }
    } else if (expected.isDouble() && Double.isNaN(expected.doubleValue())) {
      assertThat(actual.doubleValue()).isNaN();
    } else {
      assertThat(actual).isEqualTo(expected);
    }
  }

  private static String fieldNames(JsonNode node) {
    StringBuilder names = new StringBuilder();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      names.append(it.next().getKey()).append(',');
    }
    return names.toString();
  }
}
