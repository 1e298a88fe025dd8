package dev.pubsubclickhouse.backfill.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.cloud.bigquery.Field;
import com.google.cloud.bigquery.StandardSQLTypeName;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.Base64;

/**
 * Turns one BigQuery cell, as the REST API writes it (always text), into the JSON value the core
 * encoder reads for the column's ClickHouse type. The encoder does the checking: range, precision,
 * shape. Values stay exact: NUMERIC as a BigDecimal, TIMESTAMP as an ISO instant with its
 * microseconds.
 */
public final class CellValues {
  private CellValues() {}

  /** The JSON value of a non-null scalar cell of {@code field}'s type. */
  public static JsonNode scalar(Field field, String text) {
    return scalar(typeOf(field), text);
  }

  public static StandardSQLTypeName typeOf(Field field) {
    return field.getType().getStandardType();
  }

  static JsonNode scalar(StandardSQLTypeName type, String text) {
    try {
      return switch (type) {
        case INT64 -> LongNode.valueOf(Long.parseLong(text));
        case FLOAT64 -> DoubleNode.valueOf(Double.parseDouble(text));
        case NUMERIC, BIGNUMERIC -> DecimalNode.valueOf(new BigDecimal(text));
        case BOOL -> BooleanNode.valueOf("true".equalsIgnoreCase(text));
        case BYTES -> BinaryNode.valueOf(Base64.getDecoder().decode(text));
        case TIMESTAMP -> TextNode.valueOf(timestamp(text).toString());
        default -> TextNode.valueOf(text);
      };
    } catch (IllegalArgumentException | ArithmeticException e) {
      // Not what the type promises: hand the text over and let the encoder reject it precisely.
      return TextNode.valueOf(text);
    }
  }

  /**
   * A TIMESTAMP cell: microseconds since the epoch (formatOptions.useInt64Timestamp) or seconds as
   * a decimal or float literal ({@code 1.768480496123456E9}), read exactly.
   */
  static Instant timestamp(String text) {
    long micros;
    if (text.indexOf('.') < 0 && text.indexOf('E') < 0 && text.indexOf('e') < 0) {
      micros = Long.parseLong(text);
    } else {
      micros =
          new BigDecimal(text).movePointRight(6).setScale(0, RoundingMode.HALF_UP).longValueExact();
    }
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }
}
