package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.AvroMessages;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * Avro messages of topics with a Pub/Sub schema, through the emulator's real schema service: the
 * emulator validates what is published and adds the schema attributes to every push, the service
 * jar fetches that revision from the emulator and writes each message's values.
 */
@ClickHouseTest
@PubSubEmulatorTest
class AvroSchemaThroughEmulatorIT {
  private static final String DEFINITION =
      """
      {"type":"record","name":"Event","fields":[
        {"name":"id","type":"long"},
        {"name":"name","type":"string"},
        {"name":"level","type":{"type":"enum","name":"Level","symbols":["INFO","WARN"]}},
        {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
        {"name":"note","type":["null","string"]},
        {"name":"tags","type":{"type":"array","items":"string"}}
      ]}""";

  private final TestDatabase database;
  private final PubSubEmulator emulator;
  private final PubSubRest pubsub;

  AvroSchemaThroughEmulatorIT(TestDatabase database, PubSubEmulator emulator) {
    this.database = database;
    this.emulator = emulator;
    this.pubsub = emulator.rest("emulator-tests");
  }

  @Test
  void binaryAndJsonEncodedAvroMessagesArriveWithTheirValues() throws Exception {
    database.execute(
        "CREATE TABLE avro_events (id Int64, name String, level Enum8('INFO' = 0, 'WARN' = 1),"
            + " ts DateTime64(3, 'UTC'), note Nullable(String), tags Array(String),"
            + " _pubsub_message_id String) ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = Services.writing(database.server(), database.name(), "avro_events");
    env.put("PUBSUB_ENDPOINT", emulator.host());
    ServiceProcess service = Services.start("avro", env);
    try {
      pubsub.createSchema("events-avro", "AVRO", DEFINITION);
      pubsub.createTopic("avro-binary", "events-avro", "BINARY");
      pubsub.createTopic("avro-json", "events-avro", "JSON");
      pubsub.subscription("avro-binary-push", "avro-binary").pushTo(service.url()).create();
      pubsub.subscription("avro-json-push", "avro-json").pushTo(service.url()).create();
      Schema schema = new Schema.Parser().parse(DEFINITION);
      List<Message> binary = new ArrayList<>();
      List<Message> json = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        binary.add(new Message(AvroMessages.binary(event(schema, i)), Map.of(), ""));
        json.add(new Message(AvroMessages.json(event(schema, 100 + i)), Map.of(), ""));
      }
      pubsub.publish("avro-binary", binary);
      pubsub.publish("avro-json", json);
      Sql sql = Sql.of(database);
      long deadline = System.nanoTime() + 90_000_000_000L;
      while (sql.number("SELECT count() FROM avro_events") < 40 && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
    } finally {
      Services.stop(service);
    }
    String expected =
        IntStream.concat(IntStream.range(0, 20), IntStream.range(100, 120))
            .mapToObj(AvroSchemaThroughEmulatorIT::row)
            .collect(Collectors.joining("\n"));
    assertThat(
            database.query("SELECT id, name, level, ts, note, tags FROM avro_events ORDER BY id"))
        .as("every message once, with its values; service log: " + service.log())
        .isEqualTo(expected);
  }

  private static GenericRecord event(Schema schema, int id) {
    GenericData.Record event = new GenericData.Record(schema);
    event.put("id", (long) id);
    event.put("name", "event " + id);
    event.put(
        "level",
        new GenericData.EnumSymbol(
            schema.getField("level").schema(), id % 2 == 0 ? "INFO" : "WARN"));
    event.put("ts", Instant.parse("2026-01-15T12:00:00Z").toEpochMilli() + id);
    event.put("note", id % 3 == 0 ? null : "note " + id);
    event.put("tags", List.of("t" + id, "all"));
    return event;
  }

  /** The row ClickHouse holds for event {@code id}, in TabSeparated text. */
  private static String row(int id) {
    return id
        + "\tevent "
        + id
        + "\t"
        + (id % 2 == 0 ? "INFO" : "WARN")
        + "\t2026-01-15 12:00:00."
        + String.format("%03d", id)
        + "\t"
        + (id % 3 == 0 ? "\\N" : "note " + id)
        + "\t['t"
        + id
        + "','all']";
  }
}
