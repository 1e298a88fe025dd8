package dev.pubsubclickhouse.messages.cdc;

import static dev.pubsubclickhouse.messages.cdc.Fixtures.bytes;
import static dev.pubsubclickhouse.messages.cdc.Fixtures.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChangeRowsTest {
  private final ChangeEventReader reader = new ChangeEventReader(new ChangeVersion(0));

  private List<JsonNode> rows(String fixture, String orderingKey) throws PayloadRejectedException {
    byte[] data = bytes(fixture);
    return ChangeRows.of(reader.read(data, message(data, orderingKey)));
  }

  @Test
  void aToastPlaceholderIsFilledFromBeforeUnderReplicaIdentityFull() throws Exception {
    List<JsonNode> rows = rows("postgres-update-toast-full.json", null);
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).toString())
        .isEqualTo(
            "{\"id\":1,\"first_name\":\"Anne\",\"bio\":\"a long text\",\"photo\":\"AQID\","
                + "\"tags\":[\"x\",\"y\"]}");
    assertThat(((ChangeRow) rows.get(0)).deleted()).isFalse();
  }

  @Test
  void aToastPlaceholderWithoutBeforeIsRefusedNamingTheColumn() {
    assertThatThrownBy(() -> rows("postgres-update-toast.json", null))
        .isInstanceOf(PayloadRejectedException.class)
        .hasMessage(
            "column 'bio' of public.customers holds Debezium's TOAST placeholder"
                + " (__debezium_unavailable_value) and the event has no before value for it: set"
                + " REPLICA IDENTITY FULL on the source table so that updates carry the unchanged"
                + " value");
  }

  @Test
  void placeholdersAreFoundInBinaryArrayAndJsonValues() {
    assertThat(ToastPlaceholder.within(JsonNodes.text("X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==")))
        .isTrue();
    assertThat(ToastPlaceholder.within(JsonNodes.parse("[\"a\",\"__debezium_unavailable_value\"]")))
        .isTrue();
    assertThat(ToastPlaceholder.within(JsonNodes.text("\"__debezium_unavailable_value\"")))
        .isTrue();
    assertThat(ToastPlaceholder.within(JsonNodes.text("__debezium_unavailable_value x"))).isFalse();
  }

  @Test
  void aDeleteRowHoldsTheKnownKeyAndIsMarkedDeleted() throws Exception {
    List<JsonNode> rows = rows("postgres-delete-replica-identity-default.json", null);
    assertThat(rows.get(0).toString()).isEqualTo("{\"id\":1}");
    assertThat(((ChangeRow) rows.get(0)).deleted()).isTrue();
  }

  @Test
  void aDeleteWithoutBeforeIsBuiltFromTheRecordKey() throws Exception {
    List<JsonNode> rows = rows("postgres-delete-replica-identity-nothing.json", "{\"id\":42}");
    assertThat(rows.get(0).toString()).isEqualTo("{\"id\":42}");
  }

  @Test
  void aDeleteThatNamesNoRowIsRefused() {
    assertThatThrownBy(() -> rows("postgres-delete-replica-identity-nothing.json", null))
        .hasMessage(
            "a delete of public.customers carries neither a before row nor a record key, so"
                + " nothing names the deleted row (a table without a primary key under REPLICA"
                + " IDENTITY DEFAULT or NOTHING)");
  }

  @Test
  void truncatesAndSkippedMessagesWriteNoRow() throws Exception {
    assertThat(rows("postgres-truncate.json", null)).isEmpty();
    assertThat(rows("heartbeat.json", null)).isEmpty();
  }
}
