package dev.pubsubclickhouse.messages;

import static dev.pubsubclickhouse.messages.ByteArrays.concat;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import dev.pubsubclickhouse.messages.tables.ColumnMapping;
import dev.pubsubclickhouse.messages.tables.Destination;
import dev.pubsubclickhouse.messages.tables.Route;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** A message's rows with COLUMN_MAPPING: its data and attributes as columns, its unknown fields. */
class MappedMessageTest {
  private static final TableName TABLE = new TableName("db", "t");

  private static TargetTable targetTable(String mapping, ColumnDefinition... columns) {
    return new TargetTable(
        TABLE,
        name -> new TableSchema(name, List.of(columns)),
        ColumnMapping.read(new ConfigReader(Map.of("COLUMN_MAPPING", mapping))));
  }

  private static TargetTable.Snapshot table(String mapping, ColumnDefinition... columns) {
    return targetTable(mapping, columns).current();
  }

  private static MessageEncoder encoder(String unknownFieldsColumn) {
    return new MessageEncoder(
        new PayloadDecompressor(1 << 20),
        new PayloadFormats(null),
        null,
        unknownFieldsColumn,
        MessageEvents.NONE,
        Clock.systemUTC());
  }

  private static EncodedRows encode(
      MessageEncoder encoder, byte[] data, Map<String, String> attributes, TargetTable.Snapshot t)
      throws Exception {
    PubSubMessage message =
        PubSubMessage.builder().data(data).attributes(attributes).messageId("m-1").build();
    return encoder.encode(message, new PayloadFormats(null).of(Map.of()), t);
  }

  /** RowBinaryWithDefaults of one String value: not DEFAULT, length, bytes. */
  private static byte[] string(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    byte[] encoded = new byte[bytes.length + 2];
    encoded[1] = (byte) bytes.length;
    System.arraycopy(bytes, 0, encoded, 2, bytes.length);
    return encoded;
  }

  private static byte[] bytes(EncodedRows rows) {
    assertThat(rows.rejection()).isNull();
    return Arrays.copyOfRange(rows.bytes(), rows.offset(), rows.offset() + rows.length());
  }

  @Test
  void everyRowOfAnArrayMessageTakesTheWholeDataAndTheAttribute() throws Exception {
    String data = "[{\"a\":\"x\"},{\"a\":\"y\"}]";
    TargetTable.Snapshot table =
        table(
            "raw=$data,origin=$attributes.origin",
            ColumnDefinition.of("a", "String"),
            ColumnDefinition.of("raw", "String"),
            ColumnDefinition.of("origin", "String"));
    EncodedRows rows =
        encode(encoder(null), data.getBytes(StandardCharsets.UTF_8), Map.of("origin", "eu"), table);
    assertThat(rows.rowCount()).isEqualTo(2);
    assertThat(bytes(rows))
        .isEqualTo(
            concat(
                string("x"), string(data), string("eu"), string("y"), string(data), string("eu")));
  }

  @Test
  void compressedDataIsTakenDecompressed() throws Exception {
    String data = "{\"a\":\"x\"}";
    ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(gzipped)) {
      gzip.write(data.getBytes(StandardCharsets.UTF_8));
    }
    TargetTable.Snapshot table = table("raw=$data", ColumnDefinition.of("raw", "String"));
    EncodedRows rows = encode(encoder(null), gzipped.toByteArray(), Map.of(), table);
    assertThat(bytes(rows)).isEqualTo(string(data));
  }

  @Test
  void aMissingAttributeIsAMissingFieldWhoseRefusalNamesTheSource() throws Exception {
    TargetTable.Snapshot table =
        table("origin=$attributes.origin", ColumnDefinition.of("origin", "String"));
    EncodedRows rows =
        encode(encoder(null), "{}".getBytes(StandardCharsets.UTF_8), Map.of("other", "x"), table);
    assertThat(rows.rejection())
        .isEqualTo(
            "column 'origin' (String) from $attributes.origin rejects (missing): a value is"
                + " required (no DEFAULT, not Nullable)");
  }

  @Test
  void aMappedFieldIsNotAnUnknownField() throws Exception {
    TargetTable.Snapshot table =
        table(
            "user_id=user.id",
            ColumnDefinition.of("user_id", "String"),
            ColumnDefinition.of("extra", "String"));
    EncodedRows rows =
        encode(
            encoder("extra"),
            "{\"user\":{\"id\":\"7\"},\"other\":1}".getBytes(StandardCharsets.UTF_8),
            Map.of(),
            table);
    assertThat(bytes(rows)).isEqualTo(concat(string("7"), string("{\"other\":1}")));
  }

  @Test
  void binaryDataIsTakenInBase64EvenWhenItsBytesHappenToBeUtf8() throws Exception {
    // Binary Avro of {"name": "abc", "n": 1}: a length, the letters, a zig-zag 1; all of it ASCII.
    byte[] avro = {6, 'a', 'b', 'c', 2};
    PayloadFormat binaryAvro =
        new PayloadFormat() {
          @Override
          public List<JsonNode> rows(byte[] data) {
            return List.of(JsonNodeFactory.instance.objectNode().put("name", "abc").put("n", 1));
          }

          @Override
          public boolean binary() {
            return true;
          }
        };
    TargetTable.Snapshot table = table("raw=$data", ColumnDefinition.of("raw", "String"));
    PubSubMessage message = PubSubMessage.builder().data(avro).messageId("m-1").build();
    EncodedRows rows = encoder(null).encode(message, binaryAvro, table);
    assertThat(bytes(rows)).isEqualTo(string(Base64.getEncoder().encodeToString(avro)));
  }

  @Test
  void dataCopiedIntoMoreRowsThanTheHeapHoldsRefusesTheMessageBeforeEncodingIt() throws Exception {
    // 10,000 rows in 2 MiB: $data in every row would be 20 GiB of rows, beyond any heap here.
    StringBuilder data = new StringBuilder("[");
    String filler = "x".repeat(200);
    for (int i = 0; i < 10_000; i++) {
      data.append(i == 0 ? "" : ",").append("{\"a\":\"").append(filler).append("\"}");
    }
    data.append(']');
    TargetTable.Snapshot table =
        table(
            "raw=$data", ColumnDefinition.of("a", "String"), ColumnDefinition.of("raw", "String"));
    EncodedRows rows =
        encode(encoder(null), data.toString().getBytes(StandardCharsets.UTF_8), Map.of(), table);
    assertThat(rows.rejection())
        .startsWith("the message data ($data) copied into each of its 10000 rows would take about ")
        .contains(" MiB of memory, more than the ");
  }

  @Test
  void aMessageRefusedForItsDataInEveryRowSaysSo() throws Exception {
    StringBuilder data = new StringBuilder("[");
    for (int i = 0; i < 100; i++) {
      data.append(i == 0 ? "" : ",").append("{\"a\":\"").append("x".repeat(20)).append("\"}");
    }
    data.append(']');
    TargetTable table =
        targetTable(
            "raw=$data", ColumnDefinition.of("a", "String"), ColumnDefinition.of("raw", "String"));
    PubSubMessage message =
        PubSubMessage.builder()
            .data(data.toString().getBytes(StandardCharsets.UTF_8))
            .messageId("m-1")
            .build();
    // Room to read the rows (about 0.4 MiB), not for the data in each of them (about 1.6 MiB).
    MessageEncoder.Encoding encoding =
        encoder(null)
            .encode(message, Route.to(new Destination(table, null)), MemoryCharge.atMost(1 << 20));
    assertThat(encoding.rows().rejection())
        .startsWith("the message data ($data) copied into each of its 100 rows: more than ");
  }
}
