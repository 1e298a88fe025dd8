package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Enum8/Enum16 by name (exact) or by number; a name or number the type lacks rejects. */
final class EnumEncoder implements ValueEncoder {
  private final Map<String, Integer> valuesByName = new HashMap<>();
  private final Set<Integer> values = new HashSet<>();
  private final boolean wide;

  EnumEncoder(List<String> names, List<Integer> numbers, boolean wide) {
    for (int i = 0; i < names.size(); i++) {
      valuesByName.put(names.get(i), numbers.get(i));
      values.add(numbers.get(i));
    }
    this.wide = wide;
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    int number;
    if (value.isTextual()) {
      Integer byName = valuesByName.get(value.textValue());
      number = byName != null ? byName : byNumberText(value);
    } else if (NumericValues.isLong(value)) {
      long n = value.longValue();
      number = byNumber(n == (int) n ? (int) n : Integer.MIN_VALUE, false);
    } else if (value.isNumber()) {
      number = byNumber(asInt(NumericValues.integer(value)), false);
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

  /** The number a numeric text names; anything else, or beyond an int, is not one of ours. */
  private int byNumberText(JsonNode value) throws ValueRejectedException {
    BigInteger number;
    try {
      number = NumericValues.integer(value);
    } catch (ValueRejectedException e) {
      throw notNameOrNumber();
    }
    return byNumber(asInt(number), true);
  }

  private static int asInt(BigInteger number) {
    return number.bitLength() < 32 ? number.intValue() : Integer.MIN_VALUE;
  }

  /** Integer.MIN_VALUE stands for a number beyond an int: no enum has it (Enum16 is 16 bits). */
  private int byNumber(int number, boolean fromText) throws ValueRejectedException {
    if (!values.contains(number)) {
      throw fromText
          ? notNameOrNumber()
          : new ValueRejectedException("not one of the enum's numbers");
    }
    return number;
  }

  private static ValueRejectedException notNameOrNumber() {
    return new ValueRejectedException("not one of the enum's names or numbers");
  }
}
