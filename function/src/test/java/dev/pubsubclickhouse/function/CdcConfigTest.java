package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** PAYLOAD_FORMAT=debezium's settings, read and checked at start. */
class CdcConfigTest {
  private static PushConfig read(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(extra);
    env.put("CLICKHOUSE_URL", "http://127.0.0.1:8123");
    env.put("CLICKHOUSE_DATABASE", "shop");
    env.put("PAYLOAD_FORMAT", "debezium");
    return PushConfig.read(env);
  }

  @Test
  void withoutClickHouseTableTheFirstTargetIsTheDefaultTable() {
    PushConfig config =
        read(
            Map.of(
                "CDC_TABLES",
                "public.orders=orders, public.customers=crm.customers_history,"
                    + "Public.Orders=orders"));
    assertThat(config.clickHouse().table()).isEqualTo(new TableName("shop", "orders"));
    assertThat(config.tables().allowedTables())
        .containsExactly(
            new TableName("shop", "orders"), new TableName("crm", "customers_history"));
    assertThat(config.tables().changeCapture().orElseThrow().tables())
        .containsOnlyKeys("public.orders", "public.customers", "Public.Orders");
    assertThat(config.tables().changeCapture().orElseThrow().versionEpoch()).isZero();
    assertThat(config.tables().changeCapture().orElseThrow().deadLetterTruncates()).isFalse();
  }

  @Test
  void theTableAttributeIsRefusedBecauseTheSourceTableRoutes() {
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "CDC_TABLES", "public.orders=orders",
                        "CLICKHOUSE_TABLE_ATTRIBUTE", "table")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "CLICKHOUSE_TABLE_ATTRIBUTE: is refused with PAYLOAD_FORMAT=debezium");
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> read(Map.of("CLICKHOUSE_TABLE", "t")))
        .hasMessageStartingWith("CDC_TABLES: is required with PAYLOAD_FORMAT=debezium");
    assertThatThrownBy(() -> read(Map.of("CLICKHOUSE_TABLE", "t", "CDC_TABLES", "orders=orders")))
        .hasMessageStartingWith("CDC_TABLES: expected source.table=target entries");
    assertThatThrownBy(
            () -> read(Map.of("CDC_TABLES", "public.orders=orders", "CDC_TRUNCATE", "ignore")))
        .hasMessageStartingWith("CDC_TRUNCATE: expected delete or dead_letter, got 'ignore'");
    assertThatThrownBy(
            () -> read(Map.of("CDC_TABLES", "public.orders=orders", "CDC_VERSION_EPOCH", "256")))
        .hasMessageStartingWith("CDC_VERSION_EPOCH");
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "CDC_TABLES", "public.orders=orders,public.x=x",
                        "CLICKHOUSE_DEAD_LETTER_TABLE", "x")))
        .hasMessageStartingWith("CDC_TABLES: lists the dead-letter table shop.x");
    Map<String, String> json = new HashMap<>();
    json.put("CLICKHOUSE_URL", "http://127.0.0.1:8123");
    json.put("CLICKHOUSE_TABLE", "t");
    json.put("CDC_TABLES", "public.orders=orders");
    assertThatThrownBy(() -> PushConfig.read(json))
        .hasMessageStartingWith("CDC_TABLES: needs PAYLOAD_FORMAT=debezium");
  }
}
