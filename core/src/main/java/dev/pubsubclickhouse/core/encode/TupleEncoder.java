package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.List;

/**
 * Tuple(...) from a JSON array (by position) or, for a named tuple, from an object (by name; a
 * missing element is NULL when its type is Nullable) or null (every element NULL).
 */
final class TupleEncoder implements ValueEncoder {
  private final List<ValueEncoder> elements;
  private final List<String> names;

  /** {@code names} is null for a tuple whose elements have no names. */
  TupleEncoder(List<ValueEncoder> elements, List<String> names) {
    this.elements = elements;
    this.names = names;
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (value.isArray()) {
      if (value.size() != elements.size()) {
        throw new ValueRejectedException(
            "expected " + elements.size() + " elements, got " + value.size());
      }
      for (int i = 0; i < elements.size(); i++) {
        encodeElement(i, value.get(i), out);
      }
    } else if ((value.isObject() || value.isNull()) && names != null) {
      // A NULL tuple inside a value (a NULL struct in a struct) is the tuple of its elements'
      // NULLs, as the column's DEFAULT stands for a NULL struct at the top.
      for (int i = 0; i < elements.size(); i++) {
        JsonNode element = value.get(names.get(i));
        encodeElement(i, element == null ? NullNode.getInstance() : element, out);
      }
    } else {
      throw new ValueRejectedException(
          names == null
              ? "expected an array, got " + NumericValues.kind(value)
              : "expected an array or an object, got " + NumericValues.kind(value));
    }
  }

  private void encodeElement(int index, JsonNode element, RowBinaryOutput out)
      throws ValueRejectedException {
    try {
      elements.get(index).encode(element, out);
    } catch (ValueRejectedException e) {
      String label = names == null ? "element " + (index + 1) : "element " + names.get(index);
      throw new ValueRejectedException(label + ": " + e.getMessage());
    }
  }
}
