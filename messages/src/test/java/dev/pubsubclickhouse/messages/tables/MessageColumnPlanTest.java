package dev.pubsubclickhouse.messages.tables;

import static org.assertj.core.api.Assertions.assertThat;

import com.clickhouse.data.ClickHouseColumn;
import org.junit.jupiter.api.Test;

/** The rule the plan prints for a type is the one the encoder applies (docs/types.md). */
class MessageColumnPlanTest {
  private static String rule(String type) {
    return MessageColumnPlan.rule(ClickHouseColumn.of("c", type));
  }

  @Test
  void aDecimalSaysExtraFractionalDigitsAreCutNotThatItIsExact() {
    // "1.239" into Decimal(10, 2) is stored as 1.23: the encoder cuts toward zero.
    assertThat(rule("Decimal(10, 2)"))
        .isEqualTo(
            "number or numeric string; digits beyond the scale cut toward zero,"
                + " too many integer digits refused");
    assertThat(rule("Nullable(Decimal64(4))")).endsWith("refused, or null");
  }

  @Test
  void aJsonColumnSaysItTakesOnlyAnObject() {
    // An array or a number into a JSON column is refused, as ClickHouse's JSON type refuses it.
    assertThat(rule("JSON")).isEqualTo("JSON object, or a string holding one");
  }

  @Test
  void aDateSaysItAlsoTakesDaysSinceTheEpoch() {
    assertThat(rule("Date32")).isEqualTo("ISO-8601 date or days since 1970-01-01, range-checked");
  }
}
