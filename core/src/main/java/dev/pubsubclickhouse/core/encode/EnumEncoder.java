package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Enum8/Enum16 by name (exact) or by number; a name or number the type lacks rejects. */
final class EnumEncoder implements ValueEncoder {
  private final Map<String, Integer> valuesByName = new HashMap<>();
  private final Set<Integer> values = new HashSet<>();
  private final boolean wide;

  EnumEncoder(String[] names, int[] numbers, boolean wide) {
    for (int i = 0; i < names.length; i++) {
      valuesByName.put(names[i], numbers[i]);
      values.add(numbers[i]);
    }
    this.wide = wide;
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    int number;
    if (value.isTextual()) {
      Integer byName = valuesByName.get(value.textValue());
      if (byName != null) {
        number = byName;
      } else {
        number = byNumber(NumericValues.integer(value).intValue(), true);
      }
    } else if (NumericValues.isLong(value)) {
      long n = value.longValue();
      number = byNumber(n == (int) n ? (int) n : Integer.MIN_VALUE, false);
    } else {
      throw new ValueRejectedException(
          "expected an enum name or number, got " + NumericValues.kind(value));
    }
    if (wide) {
      out.writeShortLE(number);
    } else {
      out.writeByte(number);
    }
  }

  private int byNumber(int number, boolean fromText) throws ValueRejectedException {
    if (!values.contains(number)) {
      throw new ValueRejectedException(
          fromText ? "not one of the enum's names or numbers" : "not one of the enum's numbers");
    }
    return number;
  }
}
