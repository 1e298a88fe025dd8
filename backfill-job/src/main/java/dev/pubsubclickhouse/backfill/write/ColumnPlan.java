package dev.pubsubclickhouse.backfill.write;

import com.google.cloud.bigquery.Field;
import com.google.cloud.bigquery.Schema;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.ColumnPlanText;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which BigQuery field fills which ClickHouse column, matched by exact name. BigQuery fields the
 * table lacks are left out (one warning); columns BigQuery lacks take their DEFAULT, NULL or an
 * empty Array/Map; anything else stops the job at start with every problem listed.
 */
public final class ColumnPlan {
  /** How one ClickHouse column is filled. */
  public record Mapping(String column, String clickHouseType, String source, String note) {}

  private final List<Mapping> mappings;
  private final List<String> ignoredFields;

  private ColumnPlan(List<Mapping> mappings, List<String> ignoredFields) {
    this.mappings = List.copyOf(mappings);
    this.ignoredFields = List.copyOf(ignoredFields);
  }

  /**
   * @throws PlanException listing every column that cannot be filled
   */
  public static ColumnPlan of(Schema source, TableSchema target) {
    Map<String, Field> fields = new HashMap<>();
    for (Field field : source.getFields()) {
      fields.put(field.getName(), field);
    }
    List<Mapping> mappings = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<String> used = new ArrayList<>();
    for (ColumnDefinition column : target.columns()) {
      if (!column.defaultKind().insertable()) {
        mappings.add(
            new Mapping(
                column.name(),
                column.type(),
                "-",
                column.defaultKind() + ", computed by ClickHouse"));
        continue;
      }
      Field field = fields.get(column.name());
      if (field == null) {
        String fill = ColumnPlanText.whenAbsent(column).orElse(null);
        if (fill == null) {
          problems.add(
              "column '"
                  + column.name()
                  + "' ("
                  + column.type()
                  + ") has no BigQuery field of that name, no DEFAULT and is not Nullable");
        } else {
          mappings.add(new Mapping(column.name(), column.type(), "(none)", fill));
        }
        continue;
      }
      used.add(field.getName());
      TypeFit fit = TypeFit.of(field, column.parsed());
      String sourceText = field.getName() + " " + describe(field);
      if (fit == TypeFit.INCOMPATIBLE) {
        problems.add(
            "column '"
                + column.name()
                + "' ("
                + column.type()
                + ") cannot take BigQuery "
                + describe(field));
      }
      mappings.add(
          new Mapping(
              column.name(),
              column.type(),
              sourceText,
              switch (fit) {
                case EXACT -> "exact";
                case CHECKED -> "checked per value; misfits are dead-lettered";
                case INCOMPATIBLE -> "INCOMPATIBLE";
              }));
    }
    if (!problems.isEmpty()) {
      throw new PlanException(
          "BigQuery and " + target.table() + " do not fit: " + String.join("; ", problems));
    }
    List<String> ignored = new ArrayList<>();
    for (Field field : source.getFields()) {
      if (!used.contains(field.getName())) {
        ignored.add(field.getName());
      }
    }
    try {
      // The rows are encoded for the table as it is when they are written (TargetTable); this
      // refuses a column no encoder can write before any row is read.
      RowEncoder.forTable(target);
    } catch (IllegalArgumentException e) {
      throw new PlanException(e.getMessage());
    }
    return new ColumnPlan(mappings, ignored);
  }

  public List<Mapping> mappings() {
    return mappings;
  }

  /** BigQuery fields the ClickHouse table has no column for. */
  public List<String> ignoredFields() {
    return ignoredFields;
  }

  /** The plan as an aligned text table, for --dryRun and the start log. */
  public String describe() {
    List<ColumnPlanText.Row> rows = new ArrayList<>();
    for (Mapping m : mappings) {
      rows.add(new ColumnPlanText.Row(m.column(), m.clickHouseType(), m.source(), m.note()));
    }
    StringBuilder text = new StringBuilder(ColumnPlanText.format("bigquery field", rows));
    if (!ignoredFields.isEmpty()) {
      text.append("ignored BigQuery fields (no such column): ")
          .append(String.join(", ", ignoredFields))
          .append('\n');
    }
    return text.toString();
  }

  private static String describe(Field field) {
    String type = field.getType().getStandardType().name();
    return field.getMode() == Field.Mode.REPEATED ? "ARRAY<" + type + ">" : type;
  }

  /** The schemas do not fit: one line listing every problem. */
  public static final class PlanException extends RuntimeException {
    public PlanException(String message) {
      super(message);
    }
  }
}
