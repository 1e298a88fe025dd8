package dev.pubsubclickhouse.core.evolve;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.regex.Pattern;

/**
 * The type of a new column, from the first value seen for its field, and which field names may
 * become columns. Conservative: every inferred type is Nullable (rows without the field stay
 * valid), numbers are Int64 only when written without a fraction, strings stay String (no guessing
 * of dates or UUIDs from text), and anything else takes the configured fallback type.
 */
public final class ColumnTypes {
  /** Plain identifiers only: nothing that needs quoting elsewhere, no Nested dots. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  /** The prefix of the columns the service fills itself. */
  public static final String RESERVED_PREFIX = "_pubsub_";

  private static final BigInteger INT64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger INT64_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private ColumnTypes() {}

  /**
   * The column type for a field whose first non-null value is {@code value}: true or false is
   * Nullable(Bool); a whole number written without a fraction and within Int64 is Nullable(Int64);
   * any other number Nullable(Float64) (beyond Int64: the fallback); a string or bytes
   * Nullable(String); an object or an array the fallback.
   */
  public static String inferred(JsonNode value, String fallbackType) {
    if (value.isBoolean()) {
      return "Nullable(Bool)";
    }
    if (value.isIntegralNumber()) {
      BigInteger integer = value.bigIntegerValue();
      return integer.compareTo(INT64_MIN) >= 0 && integer.compareTo(INT64_MAX) <= 0
          ? "Nullable(Int64)"
          : fallbackType;
    }
    if (value.isNumber()) {
      return "Nullable(Float64)";
    }
    if (value.isTextual() || value.isBinary()) {
      return "Nullable(String)";
    }
    return fallbackType;
  }

  /** Why a field of this name may not become a column, or null when it may. */
  public static String nameRefusal(String name) {
    if (!NAME.matcher(name).matches()) {
      return "not a plain column name (a letter or '_', then letters, digits or '_', at most 128)";
    }
    if (name.startsWith(RESERVED_PREFIX)) {
      return "names starting with " + RESERVED_PREFIX + " are kept for the service's own columns";
    }
    return null;
  }
}
