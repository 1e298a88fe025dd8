package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.pubsub.v1.Schema.Type;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * COLUMN_MAPPING through the push service into the real ClickHouse: nested paths, the message data
 * and an attribute as columns, a missing path taking the DEFAULT or refusing the message with a
 * reason that names the path, and an Avro message mapped as a JSON one.
 */
@ClickHouseTest
class ColumnMappingIT {
  private static final String DEAD_LETTERS =
      "(raw_message String, error_message String, stack_trace String, failed_at DateTime)"
          + " ENGINE = MergeTree ORDER BY failed_at";
  private static final String MAPPING =
      "user_id=user.id,sku=items[1].sku,\"dotted\"=\"a.b\".c,raw=$data,"
          + "origin=$attributes.origin,region=geo.region,amount=order.amount";

  private final TestDatabase database;

  ColumnMappingIT(TestDatabase database) {
    this.database = database;
  }

  @Test
  void mappedColumnsTakeTheirPathsTheDataAndTheAttributeAndAMissingPathIsAMissingField()
      throws Exception {
    database.execute(
        "CREATE TABLE orders (id String, user_id UInt64, sku String, dotted Int32, raw String,"
            + " origin String, region String DEFAULT 'unknown', amount Int32, extra String)"
            + " ENGINE = MergeTree ORDER BY id");
    database.execute("CREATE TABLE orders_dead " + DEAD_LETTERS);
    String full =
        "{\"id\":\"o-1\",\"user\":{\"id\":\"18446744073709551615\",\"name\":\"ann\"},"
            + "\"items\":[{\"sku\":\"a\"},{\"sku\":\"b\"}],\"a.b\":{\"c\":-3},"
            + "\"geo\":{\"region\":\"eu-west\"},\"order\":{\"amount\":12},\"user_id\":5,"
            + "\"note\":\"kept\"}";
    String noRegion =
        "[{\"id\":\"o-2\",\"user\":{\"id\":2},\"items\":[{},{\"sku\":\"c\"}],\"a.b\":{\"c\":1},"
            + "\"order\":{\"amount\":1}},"
            + "{\"id\":\"o-3\",\"user\":{\"id\":3},\"items\":[0,{\"sku\":\"d\"}],\"a.b\":{\"c\":2},"
            + "\"geo\":null,\"order\":{\"amount\":2}}]";
    String noAmount =
        "{\"id\":\"o-4\",\"user\":{\"id\":4},\"items\":[{},{\"sku\":\"e\"}],\"a.b\":{\"c\":1},"
            + "\"order\":{\"total\":9}}";
    try (RunningService service =
        RunningService.start(
            database,
            "orders",
            Map.of(
                "COLUMN_MAPPING", MAPPING,
                "CLICKHOUSE_DEAD_LETTER_TABLE", "orders_dead",
                "UNKNOWN_FIELDS_COLUMN", "extra"))) {
      assertThat(service.push("m-1", utf8(full), Map.of("origin", "web"))).isEqualTo(204);
      assertThat(service.push("m-2", utf8(noRegion), Map.of("origin", "app"))).isEqualTo(204);
      assertThat(service.push("m-4", utf8(noAmount), Map.of("origin", "app"))).isEqualTo(204);
    }
    assertThat(
            database.query(
                "SELECT id, user_id, sku, dotted, raw, origin, region, amount, extra FROM orders"
                    + " ORDER BY id FORMAT TSVRaw"))
        .isEqualTo(
            String.join(
                "\n",
                "o-1\t18446744073709551615\tb\t-3\t"
                    + full
                    + "\tweb\teu-west\t12\t{\"user_id\":5,\"note\":\"kept\"}",
                "o-2\t2\tc\t1\t" + noRegion + "\tapp\tunknown\t1\t{}",
                "o-3\t3\td\t2\t" + noRegion + "\tapp\tunknown\t2\t{}"));
    assertThat(database.query("SELECT error_message FROM orders_dead"))
        .isEqualTo(
            "column \\'amount\\' (Int32) from order.amount rejects (missing): a value is required"
                + " (no DEFAULT, not Nullable)");
  }

  @Test
  void anAvroMessagesRecordIsMappedAsAJsonObjectAndItsBinaryDataIsBase64() throws Exception {
    String schemaName = "projects/test/schemas/orders-avro";
    String definition =
        "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"string\"},"
            + "{\"name\":\"user\",\"type\":{\"type\":\"record\",\"name\":\"User\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"}]}},"
            + "{\"name\":\"items\",\"type\":{\"type\":\"array\",\"items\":\"string\"}}]}";
    Schema schema = new Schema.Parser().parse(definition);
    GenericRecord user = new GenericData.Record(schema.getField("user").schema());
    user.put("id", 77L);
    GenericRecord order = new GenericData.Record(schema);
    order.put("id", "a-1");
    order.put("user", user);
    order.put("items", java.util.List.of("x", "y"));
    ByteArrayOutputStream binary = new ByteArrayOutputStream();
    Encoder encoder = EncoderFactory.get().binaryEncoder(binary, null);
    new GenericDatumWriter<GenericRecord>(schema).write(order, encoder);
    encoder.flush();
    // A long 77 is the zig-zag byte 0x9A: not UTF-8 on its own, so the data is kept in base64.
    byte[] data = binary.toByteArray();
    database.execute(
        "CREATE TABLE avro_orders (id String, user_id Int64, second String, raw String)"
            + " ENGINE = MergeTree ORDER BY id");
    try (SchemaServiceStandIn schemas = new SchemaServiceStandIn()) {
      schemas.put(schemaName, "rev1", Type.AVRO, definition);
      try (RunningService service =
          RunningService.start(
              database,
              "avro_orders",
              Map.of(
                  "COLUMN_MAPPING",
                  "user_id=user.id,second=items[1],raw=$data",
                  "PUBSUB_ENDPOINT",
                  schemas.endpoint()))) {
        Map<String, String> attributes =
            Map.of(
                "googclient_schemaname", schemaName,
                "googclient_schemarevisionid", "rev1",
                "googclient_schemaencoding", "BINARY");
        assertThat(service.push("a-1", data, attributes)).isEqualTo(204);
      }
    }
    assertThat(database.query("SELECT id, user_id, second, raw FROM avro_orders"))
        .isEqualTo("a-1\t77\ty\t" + Base64.getEncoder().encodeToString(data));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
