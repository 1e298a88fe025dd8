package dev.pubsubclickhouse.backfill.write;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.bigquery.Field;
import com.google.cloud.bigquery.Schema;
import com.google.cloud.bigquery.StandardSQLTypeName;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableDefinitionTest {
  @Test
  void everyBigQueryTypeGetsAColumnTheColumnPlanAccepts() {
    for (StandardSQLTypeName type : StandardSQLTypeName.values()) {
      if (type == StandardSQLTypeName.ARRAY) {
        continue; // a schema says REPEATED instead
      }
      for (Field.Mode mode : Field.Mode.values()) {
        Field.Builder field =
            type == StandardSQLTypeName.STRUCT
                ? Field.newBuilder(
                    "f",
                    type,
                    Field.of("x", StandardSQLTypeName.INT64),
                    Field.of("y", StandardSQLTypeName.STRING))
                : Field.newBuilder("f", type);
        if (type == StandardSQLTypeName.RANGE) {
          field.setRangeElementType(
              com.google.cloud.bigquery.FieldElementType.newBuilder().setType("DATE").build());
        }
        Field built = field.setMode(mode).build();
        Schema schema = Schema.of(built);

        var table = TableDefinition.schemaOf(new TableName("db", "t"), schema);
        TypeFit fit = TypeFit.of(built, table.columns().get(0).parsed());

        assertThat(fit)
            .as(type + " " + mode + " as " + table.columns().get(0).type())
            .isNotEqualTo(TypeFit.INCOMPATIBLE);
      }
    }
  }

  @Test
  void theDefaultOrderIsTheFirstRequiredTimeThenTheFirstRequiredKeyThenNone() {
    TableName table = new TableName("db", "t");
    Field optionalTime = Field.of("at", StandardSQLTypeName.TIMESTAMP);
    Field requiredId =
        Field.newBuilder("id", StandardSQLTypeName.INT64).setMode(Field.Mode.REQUIRED).build();
    Field requiredDay =
        Field.newBuilder("day", StandardSQLTypeName.DATE).setMode(Field.Mode.REQUIRED).build();

    assertThat(
            TableDefinition.createStatement(
                table, Schema.of(optionalTime, requiredId, requiredDay), Optional.empty()))
        .endsWith("ORDER BY `day`\n");
    assertThat(
            TableDefinition.createStatement(
                table, Schema.of(optionalTime, requiredId), Optional.empty()))
        .endsWith("ORDER BY `id`\n");
    assertThat(TableDefinition.createStatement(table, Schema.of(optionalTime), Optional.empty()))
        .isEqualTo(
            "CREATE TABLE IF NOT EXISTS `db`.`t`\n(\n    `at` Nullable(DateTime64(6, 'UTC'))\n)\n"
                + "ENGINE = MergeTree\nORDER BY tuple()\n");
    assertThat(TableDefinition.createStatement(table, Schema.of(optionalTime), Optional.of("(at)")))
        .endsWith("ORDER BY (at)\nSETTINGS allow_nullable_key = 1\n");
  }
}
