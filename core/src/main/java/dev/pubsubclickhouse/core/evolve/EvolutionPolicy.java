package dev.pubsubclickhouse.core.evolve;

import com.clickhouse.data.ClickHouseColumn;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How far the service may change a table: which new fields become columns, of what type, and how
 * many.
 *
 * @param fallbackType the column type of a field whose value is not a boolean, number or string (an
 *     object, an array, a number beyond Int64)
 * @param maxNewColumns columns one instance may add to one table per {@code period}
 * @param maxTableColumns no column is added to a table that has this many already (every instance
 *     sees the same count, so this bounds the fleet)
 * @param cluster the cluster of an {@code ON CLUSTER} clause, when the table lives on one
 */
public record EvolutionPolicy(
    String fallbackType,
    int maxNewColumns,
    Duration period,
    int maxTableColumns,
    Optional<String> cluster) {

  /** What a configured type may hold before it is parsed: no quotes, comments or statements. */
  private static final Pattern TYPE_TEXT = Pattern.compile("[A-Za-z0-9_(), ]{1,200}");

  private static final Pattern CLUSTER_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,255}");

  public EvolutionPolicy {
    checkType(fallbackType);
    if (maxNewColumns < 0 || maxTableColumns < 1 || period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("limits must be positive");
    }
    cluster.ifPresent(
        name -> {
          if (!CLUSTER_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                "cluster name '" + name + "' is invalid: use letters, digits, '_', '.', '-'");
          }
        });
  }

  /**
   * Refuses a type the encoder cannot write or that is not plain type text.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static void checkType(String type) {
    if (type == null || !TYPE_TEXT.matcher(type).matches()) {
      throw new IllegalArgumentException(
          "'" + type + "' is not a type: use a ClickHouse type such as Nullable(String) or JSON");
    }
    try {
      ClickHouseColumn.of("c", type);
      RowEncoder.forTable(
          new TableSchema(
              new TableName("check", "check"), List.of(ColumnDefinition.of("c", type))));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("type " + type + " cannot be written: " + e.getMessage());
    }
  }
}
