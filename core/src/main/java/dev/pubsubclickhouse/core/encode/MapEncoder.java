package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.Map;

/** Map(K, V) from a JSON object; each key is read as K from its text (so "42" fits UInt32). */
final class MapEncoder implements ValueEncoder {
  private final ValueEncoder key;
  private final ValueEncoder value;

  MapEncoder(ValueEncoder key, ValueEncoder value) {
    this.key = key;
    this.value = value;
  }

  @Override
  public void encode(JsonNode object, RowBinaryOutput out) throws ValueRejectedException {
    if (!object.isObject()) {
      throw new ValueRejectedException("expected an object, got " + NumericValues.kind(object));
    }
    out.writeVarUInt(object.size());
    Iterator<Map.Entry<String, JsonNode>> entries = object.fields();
    while (entries.hasNext()) {
      Map.Entry<String, JsonNode> entry = entries.next();
      try {
        key.encode(TextNode.valueOf(entry.getKey()), out);
        value.encode(entry.getValue(), out);
      } catch (ValueRejectedException e) {
        throw new ValueRejectedException(
            "key " + Excerpt.quote(entry.getKey()) + ": " + e.getMessage());
      }
    }
  }
}
