package dev.pubsubclickhouse.core.evolve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import org.junit.jupiter.api.Test;

class ColumnTypesTest {
  private static String typeOf(String json) throws Exception {
    JsonNode row = JsonPayloads.rows(("{\"v\":" + json + "}").getBytes()).get(0);
    return ColumnTypes.inferred(row.get("v"), "Nullable(String)");
  }

  @Test
  void eachKindOfValueGetsTheDocumentedNullableType() throws Exception {
    assertThat(typeOf("true")).isEqualTo("Nullable(Bool)");
    assertThat(typeOf("42")).isEqualTo("Nullable(Int64)");
    assertThat(typeOf("-9223372036854775808")).isEqualTo("Nullable(Int64)");
    assertThat(typeOf("4.5")).isEqualTo("Nullable(Float64)");
    assertThat(typeOf("42.0"))
        .as("a fraction, even .0, is not a whole number")
        .isEqualTo("Nullable(Float64)");
    assertThat(typeOf("1e3")).isEqualTo("Nullable(Float64)");
    assertThat(typeOf("\"2026-01-15\"")).as("no guessing from text").isEqualTo("Nullable(String)");
  }

  @Test
  void objectsArraysAndNumbersBeyondInt64TakeTheFallback() throws Exception {
    assertThat(typeOf("{\"a\":1}")).isEqualTo("Nullable(String)");
    assertThat(typeOf("[1,2]")).isEqualTo("Nullable(String)");
    assertThat(typeOf("9223372036854775808")).isEqualTo("Nullable(String)");
    JsonNode row = JsonPayloads.rows("{\"v\":{\"a\":1}}".getBytes()).get(0);
    assertThat(ColumnTypes.inferred(row.get("v"), "JSON")).isEqualTo("JSON");
  }

  @Test
  void onlyPlainNamesOutsideTheServicesPrefixMayBecomeColumns() {
    assertThat(ColumnTypes.nameRefusal("user_id")).isNull();
    assertThat(ColumnTypes.nameRefusal("_x9")).isNull();
    assertThat(ColumnTypes.nameRefusal("9lives")).contains("not a plain column name");
    assertThat(ColumnTypes.nameRefusal("a.b")).contains("not a plain column name");
    assertThat(ColumnTypes.nameRefusal("a`; DROP TABLE t")).contains("not a plain column name");
    assertThat(ColumnTypes.nameRefusal("")).contains("not a plain column name");
    assertThat(ColumnTypes.nameRefusal("x".repeat(129))).contains("not a plain column name");
    assertThat(ColumnTypes.nameRefusal("_pubsub_thing")).contains("_pubsub_");
  }

  @Test
  void aFallbackTypeMustBePlainTypeTextTheEncoderWrites() {
    EvolutionPolicy.checkType("Nullable(String)");
    EvolutionPolicy.checkType("JSON");
    EvolutionPolicy.checkType("Map(String, String)");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> EvolutionPolicy.checkType("String) ENGINE = Log; --"))
        .hasMessageContaining("is not a type");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> EvolutionPolicy.checkType("AggregateFunction(sum, UInt64)"))
        .hasMessageContaining("cannot be written");
  }
}
