package dev.pubsubclickhouse.messages.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableMappingTest {
  private static final TableName DEFAULT = new TableName("db", "events");

  private static TableMapping read(Map<String, String> env) {
    return TableMapping.read(new ConfigReader(env), DEFAULT, Optional.empty());
  }

  @Test
  void byDefaultEveryMessageGoesToTheTableAsItIsAndUnknownFieldsAreIgnored() {
    TableMapping mapping = read(Map.of());
    assertThat(mapping.tableAttribute()).isEmpty();
    assertThat(mapping.allowedTables()).isEmpty();
    assertThat(mapping.evolution()).isEmpty();
    assertThat(mapping.unknownFieldsColumn()).isEmpty();
  }

  @Test
  void allowedTablesAreInTheDefaultDatabaseUnlessTheyNameOne() {
    TableMapping mapping =
        read(Map.of("CLICKHOUSE_TABLE_ATTRIBUTE", "table", "CLICKHOUSE_TABLES", "a, other.b,"));
    assertThat(mapping.allowedTables())
        .containsExactly(new TableName("db", "a"), new TableName("other", "b"));
  }

  @Test
  void theAttributeAndTheAllowListComeTogether() {
    assertThatThrownBy(() -> read(Map.of("CLICKHOUSE_TABLE_ATTRIBUTE", "table")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("CLICKHOUSE_TABLES: is required with CLICKHOUSE_TABLE_ATTRIBUTE");
    assertThatThrownBy(() -> read(Map.of("CLICKHOUSE_TABLES", "a")))
        .hasMessage("CLICKHOUSE_TABLE_ATTRIBUTE: is required with CLICKHOUSE_TABLES");
    assertThatThrownBy(
            () -> read(Map.of("CLICKHOUSE_TABLE_ATTRIBUTE", "t", "CLICKHOUSE_TABLES", "a;b")))
        .hasMessageStartingWith("CLICKHOUSE_TABLES: table name 'a;b' is invalid");
  }

  @Test
  void schemaEvolutionIsOffOrAddColumnsWithItsLimitsAndCluster() {
    TableMapping mapping =
        read(
            Map.of(
                "SCHEMA_EVOLUTION", "add_columns",
                "SCHEMA_EVOLUTION_FALLBACK_TYPE", "JSON",
                "SCHEMA_EVOLUTION_MAX_NEW_COLUMNS", "3",
                "CLICKHOUSE_CLUSTER", "prod"));
    assertThat(mapping.evolution()).isPresent();
    assertThat(mapping.evolution().get().fallbackType()).isEqualTo("JSON");
    assertThat(mapping.evolution().get().maxNewColumns()).isEqualTo(3);
    assertThat(mapping.evolution().get().maxTableColumns()).isEqualTo(1000);
    assertThat(mapping.evolution().get().cluster()).isEqualTo(Optional.of("prod"));
    assertThatThrownBy(() -> read(Map.of("SCHEMA_EVOLUTION", "on")))
        .hasMessage("SCHEMA_EVOLUTION: expected off or add_columns, got 'on'");
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "SCHEMA_EVOLUTION", "add_columns",
                        "SCHEMA_EVOLUTION_FALLBACK_TYPE", "String; DROP TABLE x")))
        .hasMessageStartingWith("SCHEMA_EVOLUTION_FALLBACK_TYPE: 'String; DROP TABLE x' is not");
    assertThatThrownBy(
            () -> read(Map.of("SCHEMA_EVOLUTION", "add_columns", "CLICKHOUSE_CLUSTER", "a`b")))
        .hasMessageStartingWith("CLICKHOUSE_CLUSTER: cluster name 'a`b' is invalid");
  }
}
