package dev.pubsubclickhouse.core.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A column plan as a person reads it: one aligned row per ClickHouse column, saying what fills it
 * and how. The backfill's dry run and the push service's {@code --check} print it alike.
 */
public final class ColumnPlanText {
  /** How one ClickHouse column is filled: its source ("-" or "(none)" for none) and the rule. */
  public record Row(String column, String clickHouseType, String source, String how) {}

  private ColumnPlanText() {}

  /**
   * The rows under a heading line {@code column clickhouse type <sourceHeading> how}, each column
   * padded to its widest value.
   */
  public static String format(String sourceHeading, List<Row> rows) {
    List<String[]> lines = new ArrayList<>();
    lines.add(new String[] {"column", "clickhouse type", sourceHeading, "how"});
    for (Row row : rows) {
      lines.add(new String[] {row.column(), row.clickHouseType(), row.source(), row.how()});
    }
    int[] widths = new int[3];
    for (String[] line : lines) {
      for (int i = 0; i < 3; i++) {
        widths[i] = Math.max(widths[i], line[i].length());
      }
    }
    StringBuilder text = new StringBuilder();
    for (String[] line : lines) {
      for (int i = 0; i < 3; i++) {
        text.append(line[i]).append(" ".repeat(widths[i] - line[i].length() + 2));
      }
      text.append(line[3]).append('\n');
    }
    return text.toString();
  }

  /**
   * What an insertable column gets when the input has no value for it, as the encoder decides: its
   * DEFAULT, NULL when Nullable, an empty Array or Map; empty when the row is refused.
   */
  public static Optional<String> whenAbsent(ColumnDefinition column) {
    if (column.defaultKind() == DefaultKind.DEFAULT
        || column.defaultKind() == DefaultKind.EPHEMERAL) {
      return Optional.of("DEFAULT " + column.defaultExpression());
    }
    if (column.parsed().isNullable()) {
      return Optional.of("NULL");
    }
    return switch (column.parsed().getDataType()) {
      case Array, Map -> Optional.of("empty");
      default -> Optional.empty();
    };
  }
}
