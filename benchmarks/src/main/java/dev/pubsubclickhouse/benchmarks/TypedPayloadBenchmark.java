package dev.pubsubclickhouse.benchmarks;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.pubsub.v1.Schema.Type;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import dev.pubsubclickhouse.testing.AvroMessages;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * The encoder's share of the hot path for messages of a topic with a Pub/Sub schema, on one thread:
 * Avro and Protocol Buffers data, binary and JSON, decoded with the schema and encoded as
 * RowBinaryWithDefaults into the same 20 columns as {@link EncoderBenchmark#mixedRow20Columns}. One
 * operation is one message of one row, so the score is rows per second per core, beside JSON's.
 */
public class TypedPayloadBenchmark extends OneThreadRowBenchmark {
  static final String AVRO =
      """
      {"type":"record","name":"Mixed","fields":[
        {"name":"id","type":"long"},
        {"name":"user_id","type":"long"},
        {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
        {"name":"day","type":{"type":"int","logicalType":"date"}},
        {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}},
        {"name":"ratio","type":"float"},
        {"name":"score","type":"double"},
        {"name":"active","type":"boolean"},
        {"name":"level","type":{"type":"enum","name":"Level","symbols":["INFO","WARN","ERROR"]}},
        {"name":"tags","type":{"type":"array","items":"string"}},
        {"name":"attrs","type":{"type":"map","values":"string"}},
        {"name":"uuid","type":{"type":"string","logicalType":"uuid"}},
        {"name":"ip","type":"string"},
        {"name":"country","type":"string"},
        {"name":"note","type":["null","string"]},
        {"name":"count","type":"int"},
        {"name":"small","type":"int"},
        {"name":"big","type":"long"},
        {"name":"message","type":"string"},
        {"name":"codes","type":{"type":"array","items":"int"}}
      ]}""";

  static final String PROTO =
      """
      syntax = "proto3";
      message Mixed {
        uint64 id = 1; int64 user_id = 2; string ts = 3; string day = 4; string price = 5;
        float ratio = 6; double score = 7; bool active = 8;
        enum Level { UNSET = 0; INFO = 1; WARN = 2; ERROR = 3; }
        Level level = 9; repeated string tags = 10; map<string, string> attrs = 11;
        string uuid = 12; string ip = 13; string country = 14; optional string note = 15;
        uint32 count = 16; sint32 small = 17; uint64 big = 18; string message = 19;
        repeated uint32 codes = 20;
      }
      """;

  static final String PROTO_JSON =
      "{\"id\":\"123456789\",\"userId\":\"987654321\",\"ts\":\"2026-01-15T12:34:56.789Z\","
          + "\"day\":\"2026-01-15\",\"price\":\"1234.56\",\"ratio\":0.25,\"score\":98.5,"
          + "\"active\":true,\"level\":\"WARN\",\"tags\":[\"a\",\"b\",\"c\"],"
          + "\"attrs\":{\"k1\":\"v1\",\"k2\":\"v2\"},\"uuid\":\"61f0c404-5cb3-11e7-907b-a6006ad3dba0\","
          + "\"ip\":\"192.168.1.254\",\"country\":\"DE\",\"count\":42,\"small\":-7,"
          + "\"big\":\"18446744073709551615\",\"message\":\"a longer free-text message body\","
          + "\"codes\":[1,2,3]}";

  private RowEncoder encoder;
  private PayloadFormat avroBinary;
  private PayloadFormat avroJson;
  private PayloadFormat protoBinary;
  private PayloadFormat protoJson;
  private byte[] avroBinaryData;
  private byte[] avroJsonData;
  private byte[] protoBinaryData;
  private byte[] protoJsonData;

  @Setup
  public void setUp() throws Exception {
    encoder =
        RowEncoder.forTable(
            new TableSchema(new TableName("b", "mixed"), EncoderBenchmark.MIXED_COLUMNS));
    avroBinary = format(Type.AVRO, AVRO, "BINARY");
    avroJson = format(Type.AVRO, AVRO, "JSON");
    protoBinary = format(Type.PROTOCOL_BUFFER, PROTO, "BINARY");
    protoJson = format(Type.PROTOCOL_BUFFER, PROTO, "JSON");
    GenericRecord record = avroRecord();
    avroBinaryData = AvroMessages.binary(record);
    avroJsonData = AvroMessages.json(record);
    protoBinaryData = protoBinary();
    protoJsonData = PROTO_JSON.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (Object[] check :
        new Object[][] {
          {avroBinary, avroBinaryData},
          {avroJson, avroJsonData},
          {protoBinary, protoBinaryData},
          {protoJson, protoJsonData}
        }) {
      if (encode((PayloadFormat) check[0], (byte[]) check[1]) <= 0) {
        throw new IllegalStateException("a payload did not encode");
      }
    }
  }

  private static PayloadFormat format(Type type, String definition, String encoding) {
    return PayloadFormats.formatOf(
        "projects/b/schemas/mixed@1",
        com.google.pubsub.v1.Schema.newBuilder().setType(type).setDefinition(definition).build(),
        encoding);
  }

  @Benchmark
  public int avroBinaryRow20Columns() throws Exception {
    return encode(avroBinary, avroBinaryData);
  }

  @Benchmark
  public int avroJsonRow20Columns() throws Exception {
    return encode(avroJson, avroJsonData);
  }

  @Benchmark
  public int protobufBinaryRow20Columns() throws Exception {
    return encode(protoBinary, protoBinaryData);
  }

  @Benchmark
  public int protobufJsonRow20Columns() throws Exception {
    return encode(protoJson, protoJsonData);
  }

  private int encode(PayloadFormat format, byte[] payload) throws Exception {
    return out.encode(encoder, format.rows(payload));
  }

  private static GenericRecord avroRecord() {
    Schema schema = new Schema.Parser().parse(AVRO);
    GenericData.Record record = new GenericData.Record(schema);
    record.put("id", 123456789L);
    record.put("user_id", 987654321L);
    record.put("ts", Instant.parse("2026-01-15T12:34:56.789Z").toEpochMilli());
    record.put("day", (int) LocalDate.of(2026, 1, 15).toEpochDay());
    record.put("price", ByteBuffer.wrap(new BigDecimal("1234.56").unscaledValue().toByteArray()));
    record.put("ratio", 0.25f);
    record.put("score", 98.5);
    record.put("active", true);
    record.put("level", new GenericData.EnumSymbol(schema.getField("level").schema(), "WARN"));
    record.put("tags", List.of("a", "b", "c"));
    record.put("attrs", Map.of("k1", "v1", "k2", "v2"));
    record.put("uuid", "61f0c404-5cb3-11e7-907b-a6006ad3dba0");
    record.put("ip", "192.168.1.254");
    record.put("country", "DE");
    record.put("note", null);
    record.put("count", 42);
    record.put("small", -7);
    record.put("big", Long.MAX_VALUE);
    record.put("message", "a longer free-text message body");
    record.put("codes", List.of(1, 2, 3));
    return record;
  }

  private static byte[] protoBinary() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeUInt64(1, 123456789L);
    out.writeInt64(2, 987654321L);
    out.writeString(3, "2026-01-15T12:34:56.789Z");
    out.writeString(4, "2026-01-15");
    out.writeString(5, "1234.56");
    out.writeFloat(6, 0.25f);
    out.writeDouble(7, 98.5);
    out.writeBool(8, true);
    out.writeEnum(9, 2);
    for (String tag : List.of("a", "b", "c")) {
      out.writeString(10, tag);
    }
    for (String key : List.of("k1", "k2")) {
      out.writeBytes(11, entry(key, "v" + key.substring(1)));
    }
    out.writeString(12, "61f0c404-5cb3-11e7-907b-a6006ad3dba0");
    out.writeString(13, "192.168.1.254");
    out.writeString(14, "DE");
    out.writeUInt32(16, 42);
    out.writeSInt32(17, -7);
    out.writeUInt64(18, -1L);
    out.writeString(19, "a longer free-text message body");
    for (int code : List.of(1, 2, 3)) {
      out.writeUInt32(20, code);
    }
    out.flush();
    return bytes.toByteArray();
  }

  private static ByteString entry(String key, String value) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeString(1, key);
    out.writeString(2, value);
    out.flush();
    return ByteString.copyFrom(bytes.toByteArray());
  }
}
