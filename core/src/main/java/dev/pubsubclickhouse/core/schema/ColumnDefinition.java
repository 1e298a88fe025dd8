package dev.pubsubclickhouse.core.schema;

import com.clickhouse.data.ClickHouseColumn;

/**
 * One column of a table as ClickHouse describes it; {@code parsed} is the client library's reading
 * of the type grammar (nesting, precision, time zone, enum values).
 */
public record ColumnDefinition(
    String name,
    String type,
    DefaultKind defaultKind,
    String defaultExpression,
    ClickHouseColumn parsed) {

  public static ColumnDefinition of(
      String name, String type, DefaultKind defaultKind, String defaultExpression) {
    return new ColumnDefinition(
        name, type, defaultKind, defaultExpression, ClickHouseColumn.of(name, type));
  }

  /** A column without a DEFAULT expression. */
  public static ColumnDefinition of(String name, String type) {
    return of(name, type, DefaultKind.NONE, "");
  }

  /** True when an INSERT may leave this column out and ClickHouse fills it. */
  public boolean hasDefault() {
    return defaultKind != DefaultKind.NONE;
  }
}
