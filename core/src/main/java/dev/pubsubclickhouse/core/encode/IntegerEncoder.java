package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;

/** Int8 to Int256 and UInt8 to UInt256: range-checked, never wrapped. */
final class IntegerEncoder implements ValueEncoder {
  private final int width;
  private final BigInteger min;
  private final BigInteger max;
  private final long minLong;
  private final long maxLong;
  private final boolean fitsLong;

  private IntegerEncoder(int width, BigInteger min, BigInteger max) {
    this.width = width;
    this.min = min;
    this.max = max;
    this.fitsLong = min.bitLength() < 64 && max.bitLength() < 64;
    this.minLong = fitsLong ? min.longValue() : Long.MIN_VALUE;
    this.maxLong = fitsLong ? max.longValue() : Long.MAX_VALUE;
  }

  static IntegerEncoder signed(int bits) {
    BigInteger max = BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE);
    return new IntegerEncoder(bits / 8, max.negate().subtract(BigInteger.ONE), max);
  }

  static IntegerEncoder unsigned(int bits) {
    return new IntegerEncoder(
        bits / 8, BigInteger.ZERO, BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE));
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (fitsLong && NumericValues.isLong(value)) {
      long v = value.longValue();
      if (v < minLong || v > maxLong) {
        throw outOfRange();
      }
      writeLong(v, out);
      return;
    }
    if (value.isTextual() && fitsLong) {
      String text = value.textValue();
      long parsed = parseSmallDecimal(text);
      if (parsed != NOT_SIMPLE) {
        if (parsed < minLong || parsed > maxLong) {
          throw outOfRange();
        }
        writeLong(parsed, out);
        return;
      }
    }
    BigInteger v = NumericValues.integer(value);
    if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
      throw outOfRange();
    }
    if (fitsLong || width == 8) {
      writeLong(v.longValue(), out);
    } else {
      out.writeBigIntegerLE(v, width);
    }
  }

  private void writeLong(long v, RowBinaryOutput out) {
    switch (width) {
      case 1 -> out.writeByte((int) v);
      case 2 -> out.writeShortLE((int) v);
      case 4 -> out.writeIntLE((int) v);
      default -> out.writeLongLE(v);
    }
  }

  private ValueRejectedException outOfRange() {
    return new ValueRejectedException("out of range [" + min + ", " + max + "]");
  }

  private static final long NOT_SIMPLE = Long.MIN_VALUE;

  /** Parses up to 18 plain digits with an optional minus sign; anything else is NOT_SIMPLE. */
  private static long parseSmallDecimal(String text) {
    int length = text.length();
    int start = length > 0 && text.charAt(0) == '-' ? 1 : 0;
    if (length == start || length - start > 18) {
      return NOT_SIMPLE;
    }
    long result = 0;
    for (int i = start; i < length; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return NOT_SIMPLE;
      }
      result = result * 10 + (c - '0');
    }
    return start == 1 ? -result : result;
  }
}
