package dev.pubsubclickhouse.backfill.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.clickhouse.data.ClickHouseColumn;
import com.google.cloud.bigquery.Field;
import com.google.cloud.bigquery.Schema;
import com.google.cloud.bigquery.StandardSQLTypeName;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.DefaultKind;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.util.List;
import org.junit.jupiter.api.Test;

class ColumnPlanTest {
  private static final TableName TABLE = new TableName("db", "t");

  private static Field field(String name, StandardSQLTypeName type) {
    return Field.of(name, type);
  }

  private static TypeFit fit(Field field, String clickHouseType) {
    return TypeFit.of(field, ClickHouseColumn.of("c", clickHouseType));
  }

  @Test
  void int64FitsWideIntegersExactlyAndNarrowOnesCheckedPerValue() {
    Field id = field("id", StandardSQLTypeName.INT64);
    assertThat(fit(id, "Int64")).isEqualTo(TypeFit.EXACT);
    assertThat(fit(id, "Nullable(Int128)")).isEqualTo(TypeFit.EXACT);
    assertThat(fit(id, "UInt8")).isEqualTo(TypeFit.CHECKED);
    assertThat(fit(id, "Decimal(10, 2)")).isEqualTo(TypeFit.CHECKED);
    assertThat(fit(id, "Array(Int64)")).isEqualTo(TypeFit.INCOMPATIBLE);
  }

  /**
   * A NULL inner struct is the tuple of its elements' NULLs: exact only where they all take NULL.
   */
  @Test
  void aNullableStructInsideAStructIsExactOnlyWhenItsTupleTakesNull() {
    Field inner =
        Field.of("inner", StandardSQLTypeName.STRUCT, Field.of("x", StandardSQLTypeName.INT64));
    Field outer = Field.of("outer", StandardSQLTypeName.STRUCT, inner);
    assertThat(fit(outer, "Tuple(inner Tuple(x Nullable(Int64)))")).isEqualTo(TypeFit.EXACT);
    assertThat(fit(outer, "Tuple(inner Tuple(x Int64))")).isEqualTo(TypeFit.CHECKED);
    assertThat(fit(outer, "Tuple(inner Tuple(x Array(Int64)))")).isEqualTo(TypeFit.INCOMPATIBLE);
  }

  @Test
  void theDesignsPairsFitAndOthersDoNot() {
    assertThat(fit(field("n", StandardSQLTypeName.NUMERIC), "Decimal(38, 9)"))
        .isEqualTo(TypeFit.CHECKED);
    assertThat(fit(field("b", StandardSQLTypeName.BOOL), "Bool")).isEqualTo(TypeFit.EXACT);
    assertThat(fit(field("d", StandardSQLTypeName.DATE), "Date32")).isEqualTo(TypeFit.CHECKED);
    assertThat(fit(field("t", StandardSQLTypeName.TIMESTAMP), "DateTime64(6, 'UTC')"))
        .isEqualTo(TypeFit.CHECKED);
    assertThat(fit(field("t", StandardSQLTypeName.DATETIME), "DateTime"))
        .isEqualTo(TypeFit.CHECKED);
    assertThat(fit(field("s", StandardSQLTypeName.STRING), "LowCardinality(String)"))
        .isEqualTo(TypeFit.EXACT);
    assertThat(fit(field("s", StandardSQLTypeName.STRING), "Enum8('a' = 1)"))
        .isEqualTo(TypeFit.CHECKED);
    assertThat(fit(field("g", StandardSQLTypeName.GEOGRAPHY), "String")).isEqualTo(TypeFit.EXACT);
    assertThat(fit(field("j", StandardSQLTypeName.JSON), "JSON")).isEqualTo(TypeFit.EXACT);
    assertThat(fit(field("b", StandardSQLTypeName.BOOL), "UInt8")).isEqualTo(TypeFit.INCOMPATIBLE);
    assertThat(fit(field("t", StandardSQLTypeName.DATETIME), "Date"))
        .isEqualTo(TypeFit.INCOMPATIBLE);
    assertThat(fit(field("s", StandardSQLTypeName.STRING), "Array(String)"))
        .isEqualTo(TypeFit.INCOMPATIBLE);
  }

  @Test
  void arraysAndStructsFitByElement() {
    Field repeated =
        Field.newBuilder("a", StandardSQLTypeName.INT64).setMode(Field.Mode.REPEATED).build();
    assertThat(fit(repeated, "Array(Int64)")).isEqualTo(TypeFit.EXACT);
    assertThat(fit(repeated, "Array(Int8)")).isEqualTo(TypeFit.CHECKED);
    assertThat(fit(repeated, "Int64")).isEqualTo(TypeFit.INCOMPATIBLE);
    assertThat(fit(repeated, "String")).isEqualTo(TypeFit.EXACT);
    Field struct =
        Field.of(
            "s",
            StandardSQLTypeName.STRUCT,
            Field.of("x", StandardSQLTypeName.INT64),
            Field.of("y", StandardSQLTypeName.STRING));
    assertThat(fit(struct, "Tuple(x Int64, y String)")).isEqualTo(TypeFit.EXACT);
    assertThat(fit(struct, "Tuple(x Int64, y String, z Nullable(String))"))
        .isEqualTo(TypeFit.EXACT);
    assertThat(fit(struct, "Tuple(x Int64, z String)")).isEqualTo(TypeFit.INCOMPATIBLE);
  }

  @Test
  void missingColumnsTakeTheirDefaultOrNullAndExtraFieldsAreIgnored() {
    ColumnPlan plan =
        ColumnPlan.of(
            Schema.of(
                field("id", StandardSQLTypeName.INT64), field("extra", StandardSQLTypeName.STRING)),
            new TableSchema(
                TABLE,
                List.of(
                    ColumnDefinition.of("id", "Int64"),
                    ColumnDefinition.of("at", "DateTime", DefaultKind.DEFAULT, "now()"),
                    ColumnDefinition.of("note", "Nullable(String)"),
                    ColumnDefinition.of("day", "Date", DefaultKind.MATERIALIZED, "toDate(at)"))));
    assertThat(plan.ignoredFields()).containsExactly("extra");
    assertThat(plan.mappings())
        .extracting(ColumnPlan.Mapping::note)
        .containsExactly("exact", "DEFAULT now()", "NULL", "MATERIALIZED, computed by ClickHouse");
  }

  @Test
  void everyProblemIsListedInOneLine() {
    assertThatThrownBy(
            () ->
                ColumnPlan.of(
                    Schema.of(field("flag", StandardSQLTypeName.BOOL)),
                    new TableSchema(
                        TABLE,
                        List.of(
                            ColumnDefinition.of("flag", "Date"),
                            ColumnDefinition.of("id", "UInt64")))))
        .hasMessage(
            "BigQuery and db.t do not fit: column 'flag' (Date) cannot take BigQuery BOOL; column"
                + " 'id' (UInt64) has no BigQuery field of that name, no DEFAULT and is not Nullable");
  }
}
