package dev.pubsubclickhouse.messages.cdc;

import static dev.pubsubclickhouse.messages.cdc.Fixtures.bytes;
import static dev.pubsubclickhouse.messages.cdc.Fixtures.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChangeEventReaderTest {
  private final ChangeEventReader reader = new ChangeEventReader(new ChangeVersion(0));

  private ChangeEvent read(String fixture) throws PayloadRejectedException {
    return reader.read(bytes(fixture), message(bytes(fixture), null));
  }

  private ChangeEvent readText(String text) throws PayloadRejectedException {
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    return reader.read(data, message(data, null));
  }

  @Test
  void aCreateWithItsSchemaIsDecodedByTheSemanticTypes() throws Exception {
    ChangeEvent event = read("postgres-create-with-schema.json");
    assertThat(event.kind()).isEqualTo(ChangeEvent.Kind.UPSERT);
    assertThat(event.table()).isEqualTo(new SourceTable("postgresql", "public.customers"));
    assertThat(event.version()).isEqualTo(24023128L);
    assertThat(event.transactionId()).isEqualTo("555");
    assertThat(event.withSchema()).isTrue();
    assertThat(event.after().toString())
        .isEqualTo(
            "{\"id\":1,\"first_name\":\"Anne\",\"balance\":\"12.34\",\"born\":\"2022-01-08\","
                + "\"updated\":\"2023-11-14T22:13:20.123456Z\","
                + "\"seen\":\"2023-11-14T22:13:20.5+01:00\",\"tags\":[\"a\",\"b\"],"
                + "\"attrs\":\"{\\\"k\\\": [1, 2]}\"}");
  }

  @Test
  void aDeleteUnderReplicaIdentityDefaultKeepsTheKeyOfBefore() throws Exception {
    ChangeEvent event = read("postgres-delete-replica-identity-default.json");
    assertThat(event.kind()).isEqualTo(ChangeEvent.Kind.DELETE);
    assertThat(event.before().toString())
        .isEqualTo("{\"id\":1,\"first_name\":null,\"balance\":null}");
    assertThat(event.withSchema()).isFalse();
  }

  @Test
  void theRecordKeyComesFromTheOrderingKeyWithOrWithoutItsSchema() throws Exception {
    byte[] data = bytes("postgres-delete-replica-identity-nothing.json");
    assertThat(reader.read(data, message(data, "{\"id\":7}")).key().toString())
        .isEqualTo("{\"id\":7}");
    String wrapped =
        "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":false,"
            + "\"field\":\"id\"}],\"optional\":false,\"name\":\"PostgreSQL_server.public.customers.Key\"},"
            + "\"payload\":{\"id\":8}}";
    assertThat(reader.read(data, message(data, wrapped)).key().toString()).isEqualTo("{\"id\":8}");
    assertThat(reader.read(data, message(data, "not json")).key()).isNull();
  }

  @Test
  void messagesWithoutARowChangeAreSkippedByKind() throws Exception {
    assertThat(readText("").skipped()).isEqualTo("tombstone");
    assertThat(readText("null").skipped()).isEqualTo("tombstone");
    assertThat(readText("{\"schema\":null,\"payload\":null}").skipped()).isEqualTo("tombstone");
    assertThat(read("heartbeat.json").skipped()).isEqualTo("heartbeat");
    assertThat(readText("{\"ts_ms\":1588252618953}").skipped()).isEqualTo("heartbeat");
    assertThat(read("transaction-begin.json").skipped()).isEqualTo("transaction");
    assertThat(read("mysql-schema-change.json").skipped()).isEqualTo("schema_change");
    for (String skipped : List.of("", "null", "heartbeat.json")) {
      ChangeEvent event = skipped.endsWith(".json") ? read(skipped) : readText(skipped);
      assertThat(event.kind()).isEqualTo(ChangeEvent.Kind.SKIPPED);
    }
  }

  @Test
  void aTruncateCarriesItsVersion() throws Exception {
    ChangeEvent event = read("postgres-truncate.json");
    assertThat(event.kind()).isEqualTo(ChangeEvent.Kind.TRUNCATE);
    assertThat(event.version()).isEqualTo(46524000L);
  }

  @Test
  void aMySqlUpdateIsVersionedByItsBinlogPositionAndNamesItsGtid() throws Exception {
    ChangeEvent event = read("mysql-update.json");
    assertThat(event.table()).isEqualTo(new SourceTable("mysql", "inventory.customers"));
    assertThat(event.version()).isEqualTo((3L << 36) | 484);
    assertThat(event.transactionId()).isEqualTo("3E11FA47-71CA-11E1-9E33-C80AA9429562:23");
    assertThat(event.after().get("first_name").asText()).isEqualTo("Anne Marie");
  }

  @Test
  void refusalsNameTheirReason() {
    assertThatThrownBy(() -> read("postgres-message.json"))
        .isInstanceOf(PayloadRejectedException.class)
        .hasMessage(
            "op m (a logical decoding message, prefix 'foo') has no row to write: it is kept as a"
                + " dead letter");
    assertThatThrownBy(() -> readText("{\"after\":{\"id\":1},\"source\":{}}"))
        .hasMessage(
            "not a Debezium change event: it has no op (is PAYLOAD_FORMAT=debezium meant for"
                + " this topic?)");
    assertThatThrownBy(() -> readText("{\"after\":{\"id\":1},\"op\":\"c\"}"))
        .hasMessage(
            "not a Debezium change event: it has no source (is PAYLOAD_FORMAT=debezium meant for"
                + " this topic?)");
    assertThatThrownBy(
            () ->
                readText(
                    "{\"after\":{\"id\":1},\"op\":\"c\",\"source\":{\"connector\":\"sqlserver\","
                        + "\"db\":\"shop\",\"table\":\"orders\"}}"))
        .hasMessage(
            "connector 'sqlserver' is not supported (postgresql and mysql are): source.shop.orders");
    assertThatThrownBy(
            () ->
                readText(
                    "{\"after\":{\"id\":1},\"op\":\"c\",\"source\":{\"connector\":\"postgresql\","
                        + "\"schema\":\"public\",\"table\":\"t\"}}"))
        .hasMessage("source.lsn is missing: the change's log position is unknown");
    assertThatThrownBy(() -> readText("[1]"))
        .hasMessage("a Debezium change event is a JSON object, got ARRAY");
    assertThatThrownBy(() -> readText("{\"op\":")).hasMessageStartingWith("the data is not JSON: ");
  }
}
