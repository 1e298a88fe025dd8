package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.pubsub.v1.Schema.Type;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Messages of topics with a Pub/Sub schema, against the real ClickHouse and a local stand-in for
 * the schema service: Avro and Protocol Buffers, binary and JSON encodings, every mapped type
 * written and read back as the value that was published. The data is made independently of the
 * service's decoders: Avro's own writers, and Protocol Buffers bytes and JSON written field by
 * field.
 */
@ClickHouseTest
class PubSubSchemasIT {
  private static final String AVRO_SCHEMA = "projects/test/schemas/events-avro";
  private static final String PROTO_SCHEMA = "projects/test/schemas/events-proto";
  private static final String DEAD_LETTERS =
      "(raw_message String, error_message String, stack_trace String, failed_at DateTime)"
          + " ENGINE = MergeTree ORDER BY failed_at";

  private static final String AVRO_DEFINITION =
      """
      {"type":"record","name":"Event","fields":[
        {"name":"b","type":"boolean"},
        {"name":"i","type":"int"},
        {"name":"l","type":"long"},
        {"name":"f","type":"float"},
        {"name":"d","type":"double"},
        {"name":"s","type":"string"},
        {"name":"by","type":"bytes"},
        {"name":"fx","type":{"type":"fixed","name":"Four","size":4}},
        {"name":"e","type":{"type":"enum","name":"Level","symbols":["INFO","WARN"]}},
        {"name":"arr","type":{"type":"array","items":"long"}},
        {"name":"m","type":{"type":"map","values":"string"}},
        {"name":"rec","type":{"type":"record","name":"Point","fields":[
          {"name":"x","type":"int"},{"name":"y","type":"string"}]}},
        {"name":"opt","type":["null","string"]},
        {"name":"opt_null","type":["null","string"]},
        {"name":"dt","type":{"type":"int","logicalType":"date"}},
        {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
        {"name":"tsu","type":{"type":"long","logicalType":"timestamp-micros"}},
        {"name":"lts","type":{"type":"long","logicalType":"local-timestamp-millis"}},
        {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
        {"name":"u","type":{"type":"string","logicalType":"uuid"}}
      ]}""";

  private static final String AVRO_TABLE =
      "(b Bool, i Int32, l Int64, f Float32, d Float64, s String, by String, fx FixedString(4),"
          + " e Enum8('INFO' = 0, 'WARN' = 1), arr Array(Int64), m Map(String, String),"
          + " rec Tuple(x Int32, y String), opt Nullable(String), opt_null Nullable(String),"
          + " dt Date, ts DateTime64(3, 'UTC'), tsu DateTime64(6, 'UTC'),"
          + " lts DateTime64(3, 'UTC'), dec Decimal(10, 2), u UUID, _pubsub_message_id String)"
          + " ENGINE = MergeTree ORDER BY _pubsub_message_id";

  private static final String AVRO_COLUMNS =
      "b, i, l, f, d, s, hex(by), fx, e, arr, m, rec, opt, opt_null, dt, ts, tsu, lts, dec, u";

  private static final String AVRO_ROW =
      "true\t-7\t-5000000000\t1.5\t2.25\théllo\t0001FF\tabcd\tWARN\t[1,2,3]\t{'k':'v'}\t(3,'z')"
          + "\there\t\\N\t2026-01-15\t2026-01-15 12:34:56.789\t2026-01-15 12:34:56.789123"
          + "\t2026-01-15 12:34:56.789\t12345678.91\t6f1c4a8e-2c1b-4f7e-9a63-0d8a5b2e1c11";

  private static final String PROTO_DEFINITION =
      """
      syntax = "proto3";
      message Event {
        bool b = 1;
        int32 i32 = 2;
        int64 i64 = 3;
        uint32 u32 = 4;
        uint64 u64 = 5;
        sint32 s32 = 6;
        sint64 s64 = 7;
        fixed32 f32 = 8;
        fixed64 f64 = 9;
        sfixed32 sf32 = 10;
        sfixed64 sf64 = 11;
        float fl = 12;
        double db = 13;
        string s = 14;
        bytes by = 15;
        enum Level { INFO = 0; WARN = 1; }
        Level level = 16;
        repeated int64 nums = 17;
        map<string, int32> counts = 18;
        message Point { int32 x = 1; string y = 2; }
        Point point = 19;
        optional string note = 20;
        int32 zero = 21;
      }
      """;

  private static final String PROTO_TABLE =
      "(b Bool, i32 Int32, i64 Int64, u32 UInt32, u64 UInt64, s32 Int32, s64 Int64, f32 UInt32,"
          + " f64 UInt64, sf32 Int32, sf64 Int64, fl Float32, db Float64, s String, by String,"
          + " level Enum8('INFO' = 0, 'WARN' = 1), nums Array(Int64), counts Map(String, Int32),"
          + " point Tuple(x Int32, y String), note Nullable(String), zero Int32,"
          + " _pubsub_message_id String) ENGINE = MergeTree ORDER BY _pubsub_message_id";

  private static final String PROTO_COLUMNS =
      "b, i32, i64, u32, u64, s32, s64, f32, f64, sf32, sf64, fl, db, s, hex(by), level, nums,"
          + " counts, point, note, zero";

  private static final String PROTO_ROW =
      "true\t-7\t-5000000000\t4294967295\t18446744073709551615\t-3\t-4\t4294967295"
          + "\t18446744073709551615\t-9\t-10\t1.5\t2.25\théllo\t0001FF\tWARN\t[1,2]\t{'a':1}"
          + "\t(3,'z')\t\\N\t0";

  /** The same message in the proto3 JSON mapping: 64-bit integers as strings, bytes in base64. */
  private static final String PROTO_JSON =
      "{\"b\":true,\"i32\":-7,\"i64\":\"-5000000000\",\"u32\":4294967295,"
          + "\"u64\":\"18446744073709551615\",\"s32\":-3,\"s64\":\"-4\",\"f32\":4294967295,"
          + "\"f64\":\"18446744073709551615\",\"sf32\":-9,\"sf64\":\"-10\",\"fl\":1.5,\"db\":2.25,"
          + "\"s\":\"héllo\",\"by\":\"AAH/\",\"level\":\"WARN\",\"nums\":[\"1\",\"2\"],"
          + "\"counts\":{\"a\":1},\"point\":{\"x\":3,\"y\":\"z\"}}";

  private final TestDatabase database;
  private SchemaServiceStandIn schemas;

  PubSubSchemasIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeEach
  void startTheSchemaService() throws IOException {
    schemas = new SchemaServiceStandIn();
    schemas.put(AVRO_SCHEMA, "rev1", Type.AVRO, AVRO_DEFINITION);
    schemas.put(PROTO_SCHEMA, "rev1", Type.PROTOCOL_BUFFER, PROTO_DEFINITION);
  }

  @AfterEach
  void stopTheSchemaService() throws InterruptedException {
    schemas.close();
  }

  private RunningService start(String table, Map<String, String> settings) throws Exception {
    Map<String, String> env = new HashMap<>(settings);
    env.put("PUBSUB_ENDPOINT", schemas.endpoint());
    return RunningService.start(database, table, env);
  }

  /**
   * Tables {@code <name>_rows} of the Protobuf columns and {@code <name>_dead} of dead letters, and
   * the service writing the first with the second as its dead-letter table, {@code settings} on
   * top.
   */
  private RunningService startWithDeadLetters(String name, Map<String, String> settings)
      throws Exception {
    database.execute("CREATE TABLE " + name + "_rows " + PROTO_TABLE);
    database.execute("CREATE TABLE " + name + "_dead " + DEAD_LETTERS);
    Map<String, String> env = new HashMap<>(settings);
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", name + "_dead");
    return start(name + "_rows", env);
  }

  private static Map<String, String> attributes(String schema, String revision, String encoding) {
    return Map.of(
        "googclient_schemaname", schema,
        "googclient_schemarevisionid", revision,
        "googclient_schemaencoding", encoding);
  }

  @Test
  void everyMappedTypeRoundTripsInAvroAndProtobufBinaryAndJson() throws Exception {
    database.execute("CREATE TABLE avro_rows " + AVRO_TABLE);
    database.execute("CREATE TABLE proto_rows " + PROTO_TABLE);
    GenericRecord event = avroEvent();
    try (RunningService service = start("avro_rows", Map.of())) {
      for (int copy = 0; copy < 2; copy++) {
        assertThat(
                service.push(
                    "avro-binary-" + copy,
                    avroBinary(event),
                    attributes(AVRO_SCHEMA, "rev1", "BINARY")))
            .isEqualTo(204);
        assertThat(
                service.push(
                    "avro-json-" + copy, avroJson(event), attributes(AVRO_SCHEMA, "rev1", "JSON")))
            .isEqualTo(204);
      }
    }
    try (RunningService service = start("proto_rows", Map.of())) {
      for (int copy = 0; copy < 2; copy++) {
        assertThat(
                service.push(
                    "proto-binary-" + copy,
                    protoBinary(),
                    attributes(PROTO_SCHEMA, "rev1", "BINARY")))
            .isEqualTo(204);
        assertThat(
                service.push(
                    "proto-json-" + copy,
                    PROTO_JSON.getBytes(StandardCharsets.UTF_8),
                    attributes(PROTO_SCHEMA, "rev1", "JSON")))
            .isEqualTo(204);
      }
    }
    assertThat(schemas.calls()).as("each revision and encoding fetched once").isEqualTo(4);
    for (String id : List.of("avro-binary-0", "avro-json-0", "avro-binary-1", "avro-json-1")) {
      assertThat(row("avro_rows", AVRO_COLUMNS, id)).as(id).isEqualTo(AVRO_ROW);
    }
    for (String id : List.of("proto-binary-0", "proto-json-0", "proto-binary-1", "proto-json-1")) {
      assertThat(row("proto_rows", PROTO_COLUMNS, id)).as(id).isEqualTo(PROTO_ROW);
    }
  }

  @Test
  void aMessageWhoseSchemaCannotBeFetchedIsAnswered503AndTakenOnceItCanBe() throws Exception {
    database.execute("CREATE TABLE later_rows " + PROTO_TABLE);
    try (RunningService service = start("later_rows", Map.of())) {
      Map<String, String> rev2 = attributes(PROTO_SCHEMA, "rev2", "BINARY");
      schemas.put(PROTO_SCHEMA, "rev2", Type.PROTOCOL_BUFFER, PROTO_DEFINITION);
      schemas.failing(true);
      assertThat(service.push("late-1", protoBinary(), rev2)).as("service down").isEqualTo(503);
      schemas.failing(false);
      assertThat(service.push("late-1", protoBinary(), rev2)).as("redelivered").isEqualTo(204);
    }
    assertThat(row("later_rows", PROTO_COLUMNS, "late-1")).isEqualTo(PROTO_ROW);
  }

  @Test
  void aMessageNamingASchemaPubSubDoesNotKnowIsDeadLetteredAskingOnce() throws Exception {
    Map<String, String> rev9 = attributes(PROTO_SCHEMA, "rev9", "BINARY");
    try (RunningService service = startWithDeadLetters("unknown", Map.of())) {
      assertThat(service.push("unknown-1", protoBinary(), rev9)).isEqualTo(204);
      assertThat(service.push("unknown-2", protoBinary(), rev9)).isEqualTo(204);
    }
    assertThat(schemas.calls()).as("the answer is kept").isEqualTo(1);
    assertThat(database.count("unknown_rows")).isZero();
    assertThat(
            database.query(
                "SELECT extract(stack_trace, 'messageId=([^ ]+)'), error_message FROM unknown_dead"
                    + " ORDER BY 1"))
        .isEqualTo(
            "unknown-1\tschema "
                + PROTO_SCHEMA
                + "@rev9 is not in Pub/Sub\\'s schema service (NOT_FOUND): "
                + "io.grpc.StatusRuntimeException: NOT_FOUND: no schema "
                + PROTO_SCHEMA
                + "@rev9\n"
                + "unknown-2\tschema "
                + PROTO_SCHEMA
                + "@rev9 is not in Pub/Sub\\'s schema service (NOT_FOUND): "
                + "io.grpc.StatusRuntimeException: NOT_FOUND: no schema "
                + PROTO_SCHEMA
                + "@rev9");
  }

  @Test
  void aSchemaTheServiceMayNotReadIsAnswered503ThenDeadLetteredAfterTheGrace() throws Exception {
    schemas.deny(PROTO_SCHEMA);
    Map<String, String> rev1 = attributes(PROTO_SCHEMA, "rev1", "BINARY");
    try (RunningService service =
        startWithDeadLetters("denied", Map.of("SCHEMA_DENIED_GRACE_SECONDS", "10"))) {
      // Long enough that the first two answers come well within it on a loaded machine.
      long firstPush = System.nanoTime();
      assertThat(service.push("denied-1", protoBinary(), rev1)).as("young").isEqualTo(503);
      assertThat(service.push("denied-1", protoBinary(), rev1)).as("kept").isEqualTo(503);
      assertThat(schemas.calls()).as("the denial is kept").isEqualTo(1);
      Thread.sleep(Math.max(0, 10_100 - (System.nanoTime() - firstPush) / 1_000_000));
      assertThat(service.push("denied-1", protoBinary(), rev1)).as("past the grace").isEqualTo(204);
    }
    assertThat(schemas.calls()).isEqualTo(1);
    assertThat(database.count("denied_rows")).isZero();
    assertThat(
            database.query(
                "SELECT extract(stack_trace, 'messageId=([^ ]+)'),"
                    + " replaceRegexpOne(error_message, 'since [0-9]+ s', 'since N s')"
                    + " FROM denied_dead"))
        .isEqualTo(
            "denied-1\tschema "
                + PROTO_SCHEMA
                + "@rev1: the service may not read it (PERMISSION_DENIED) since N s, longer than"
                + " SCHEMA_DENIED_GRACE_SECONDS (10 s): io.grpc.StatusRuntimeException:"
                + " PERMISSION_DENIED: may not read "
                + PROTO_SCHEMA
                + "@rev1");
  }

  @Test
  void aPublisherCyclingSchemaNamesGetsNoMoreLookupsThanTheBudget() throws Exception {
    List<Integer> statuses = new java.util.ArrayList<>();
    try (RunningService service =
        startWithDeadLetters("cycled", Map.of("SCHEMA_LOOKUPS_PER_MINUTE", "3"))) {
      for (int i = 0; i < 6; i++) {
        statuses.add(
            service.push(
                "cycled-" + i,
                protoBinary(),
                attributes("projects/test/schemas/made-up-" + i, "rev1", "BINARY")));
      }
      assertThat(service.service.metrics().schemaLookups.value()).isEqualTo(3);
      assertThat(service.service.metrics().schemaLookupsRefused.value()).isEqualTo(3);
    }
    assertThat(statuses).containsExactly(204, 204, 204, 503, 503, 503);
    assertThat(schemas.calls()).isEqualTo(3);
    assertThat(
            database.query(
                "SELECT groupArray(extract(stack_trace, 'messageId=([^ ]+)'))"
                    + " FROM (SELECT stack_trace FROM cycled_dead ORDER BY 1)"))
        .isEqualTo("['cycled-0','cycled-1','cycled-2']");
  }

  @Test
  void dataThatDoesNotDecodeWithItsSchemaIsDeadLetteredWithTheReason() throws Exception {
    try (RunningService service = startWithDeadLetters("odd", Map.of())) {
      assertThat(
              service.push(
                  "odd-1",
                  new byte[] {(byte) 0x82, 0x01, 0x05, 'a'},
                  attributes(PROTO_SCHEMA, "rev1", "BINARY")))
          .isEqualTo(204);
      assertThat(
              service.push(
                  "odd-2",
                  "{\"b\":\"yes\"}".getBytes(StandardCharsets.UTF_8),
                  attributes(PROTO_SCHEMA, "rev1", "JSON")))
          .isEqualTo(204);
      assertThat(
              service.push("odd-3", new byte[] {1, 2}, attributes(AVRO_SCHEMA, "rev1", "BINARY")))
          .isEqualTo(204);
      assertThat(service.push("odd-4", protoBinary(), attributes(PROTO_SCHEMA, "rev1", "XML")))
          .isEqualTo(204);
    }
    assertThat(database.count("odd_rows")).isZero();
    assertThat(
            database.query(
                "SELECT extract(stack_trace, 'messageId=([^ ]+)'), error_message FROM odd_dead"
                    + " ORDER BY 1"))
        .isEqualTo(
            "odd-1\tdata does not decode as Protocol Buffers (binary) message Event of schema "
                + PROTO_SCHEMA
                + "@rev1: While parsing a protocol message, the input ended unexpectedly in the"
                + " middle of a field.  This could mean either that the input has been truncated"
                + " or that an embedded message misreported its own length.\n"
                + "odd-2\tdata does not decode as Protocol Buffers (JSON) message Event of schema "
                + PROTO_SCHEMA
                + "@rev1: Invalid bool value: \"yes\"\n"
                + "odd-3\tdata does not decode as Avro (binary) of schema "
                + AVRO_SCHEMA
                + "@rev1: the data ends inside the record\n"
                + "odd-4\tattribute googclient_schemaencoding is \\'XML\\', not JSON or BINARY");
  }

  @Test
  void theServiceJarReadsTheProtoTextAtRunTime() throws Exception {
    // The shaded jar, as Cloud Run runs it: Wire, Kotlin and protobuf-java must all be in it.
    database.execute("CREATE TABLE jar_rows " + PROTO_TABLE);
    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", database.server().url());
    env.put("CLICKHOUSE_USER", database.server().user());
    env.put("CLICKHOUSE_PASSWORD", database.server().password());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("CLICKHOUSE_TABLE", "jar_rows");
    env.put("PUBSUB_ENDPOINT", schemas.endpoint());
    java.nio.file.Path log = java.nio.file.Files.createTempFile("schemas-jar", ".log");
    try (ServiceProcess jar =
        new ServiceProcess(env, List.of("-Xmx256m"), log, LocalClickHouse.freePort()).start()) {
      String body =
          "{\"message\":{\"data\":\""
              + java.util.Base64.getEncoder().encodeToString(protoBinary())
              + "\",\"attributes\":{\"googclient_schemaname\":\""
              + PROTO_SCHEMA
              + "\",\"googclient_schemarevisionid\":\"rev1\","
              + "\"googclient_schemaencoding\":\"BINARY\"},\"messageId\":\"jar-1\"},"
              + "\"subscription\":\"projects/test/subscriptions/push\"}";
      java.net.http.HttpResponse<String> answer =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(jar.url())
                      .header("Content-Type", "application/json")
                      .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(jar.output()).isEqualTo(204);
    }
    assertThat(row("jar_rows", PROTO_COLUMNS, "jar-1")).isEqualTo(PROTO_ROW);
  }

  private String row(String table, String columns, String messageId) {
    return database.query(
        "SELECT " + columns + " FROM " + table + " WHERE _pubsub_message_id = '" + messageId + "'");
  }

  private static GenericRecord avroEvent() {
    Schema schema = new Schema.Parser().parse(AVRO_DEFINITION);
    GenericData.Record point = new GenericData.Record(schema.getField("rec").schema());
    point.put("x", 3);
    point.put("y", "z");
    GenericData.Record event = new GenericData.Record(schema);
    event.put("b", true);
    event.put("i", -7);
    event.put("l", -5_000_000_000L);
    event.put("f", 1.5f);
    event.put("d", 2.25);
    event.put("s", "héllo");
    event.put("by", ByteBuffer.wrap(new byte[] {0, 1, (byte) 0xff}));
    event.put("fx", new GenericData.Fixed(schema.getField("fx").schema(), "abcd".getBytes()));
    event.put("e", new GenericData.EnumSymbol(schema.getField("e").schema(), "WARN"));
    event.put("arr", List.of(1L, 2L, 3L));
    event.put("m", Map.of("k", "v"));
    event.put("rec", point);
    event.put("opt", "here");
    event.put("opt_null", null);
    event.put("dt", (int) LocalDate.of(2026, 1, 15).toEpochDay());
    Instant instant = Instant.parse("2026-01-15T12:34:56.789123Z");
    event.put("ts", instant.toEpochMilli());
    event.put("tsu", instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000);
    event.put("lts", instant.toEpochMilli());
    event.put("dec", ByteBuffer.wrap(new BigDecimal("12345678.91").unscaledValue().toByteArray()));
    event.put("u", "6f1c4a8e-2c1b-4f7e-9a63-0d8a5b2e1c11");
    return event;
  }

  private static byte[] avroBinary(GenericRecord event) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Encoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
    new GenericDatumWriter<GenericRecord>(event.getSchema()).write(event, encoder);
    encoder.flush();
    return bytes.toByteArray();
  }

  private static byte[] avroJson(GenericRecord event) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Encoder encoder = EncoderFactory.get().jsonEncoder(event.getSchema(), bytes);
    new GenericDatumWriter<GenericRecord>(event.getSchema()).write(event, encoder);
    encoder.flush();
    return bytes.toByteArray();
  }

  /** The Protocol Buffers message written field by field, as any publisher's library would. */
  private static byte[] protoBinary() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeBool(1, true);
    out.writeInt32(2, -7);
    out.writeInt64(3, -5_000_000_000L);
    out.writeUInt32(4, -1);
    out.writeUInt64(5, -1L);
    out.writeSInt32(6, -3);
    out.writeSInt64(7, -4);
    out.writeFixed32(8, -1);
    out.writeFixed64(9, -1L);
    out.writeSFixed32(10, -9);
    out.writeSFixed64(11, -10);
    out.writeFloat(12, 1.5f);
    out.writeDouble(13, 2.25);
    out.writeString(14, "héllo");
    out.writeByteArray(15, new byte[] {0, 1, (byte) 0xff});
    out.writeEnum(16, 1);
    out.writeInt64(17, 1);
    out.writeInt64(17, 2);
    out.writeBytes(
        18,
        message(
            entry -> {
              entry.writeString(1, "a");
              entry.writeInt32(2, 1);
            }));
    out.writeBytes(
        19,
        message(
            point -> {
              point.writeInt32(1, 3);
              point.writeString(2, "z");
            }));
    out.flush();
    return bytes.toByteArray();
  }

  private interface Fields {
    void write(CodedOutputStream out) throws IOException;
  }

  private static ByteString message(Fields fields) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    fields.write(out);
    out.flush();
    return ByteString.copyFrom(bytes.toByteArray());
  }
}
