package dev.pubsubclickhouse.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * The encoder's share of the hot path, on one thread: payload bytes to JSON rows to
 * RowBinaryWithDefaults. One operation is one row, so the score is rows per second per core.
 */
public class EncoderBenchmark extends OneThreadRowBenchmark {
  static final String SEED_ROW =
      "{\"event_time\":\"2025-12-30 12:00:00\",\"service\":\"api\",\"level\":\"INFO\","
          + "\"message\":\"PRE-DATAFLOW TEST\"}";

  static final String MIXED_ROW =
      "{\"id\":123456789,\"user_id\":\"987654321\",\"ts\":\"2026-01-15T12:34:56.789Z\","
          + "\"day\":\"2026-01-15\",\"price\":\"1234.56\",\"ratio\":0.25,\"score\":98.5,"
          + "\"active\":true,\"level\":\"WARN\",\"tags\":[\"a\",\"b\",\"c\"],"
          + "\"attrs\":{\"k1\":\"v1\",\"k2\":\"v2\"},\"uuid\":\"61f0c404-5cb3-11e7-907b-a6006ad3dba0\","
          + "\"ip\":\"192.168.1.254\",\"country\":\"DE\",\"note\":null,\"count\":42,"
          + "\"small\":-7,\"big\":\"18446744073709551615\",\"message\":\"a longer free-text message body\","
          + "\"codes\":[1,2,3]}";

  static final List<ColumnDefinition> SEED_COLUMNS =
      List.of(
          ColumnDefinition.of("event_time", "DateTime"),
          ColumnDefinition.of("service", "String"),
          ColumnDefinition.of("level", "String"),
          ColumnDefinition.of("message", "String"));

  static final List<ColumnDefinition> MIXED_COLUMNS =
      List.of(
          ColumnDefinition.of("id", "UInt64"),
          ColumnDefinition.of("user_id", "Int64"),
          ColumnDefinition.of("ts", "DateTime64(3, 'UTC')"),
          ColumnDefinition.of("day", "Date"),
          ColumnDefinition.of("price", "Decimal(12, 2)"),
          ColumnDefinition.of("ratio", "Float32"),
          ColumnDefinition.of("score", "Float64"),
          ColumnDefinition.of("active", "Bool"),
          ColumnDefinition.of("level", "Enum8('INFO' = 1, 'WARN' = 2, 'ERROR' = 3)"),
          ColumnDefinition.of("tags", "Array(String)"),
          ColumnDefinition.of("attrs", "Map(String, String)"),
          ColumnDefinition.of("uuid", "UUID"),
          ColumnDefinition.of("ip", "IPv4"),
          ColumnDefinition.of("country", "LowCardinality(String)"),
          ColumnDefinition.of("note", "Nullable(String)"),
          ColumnDefinition.of("count", "UInt32"),
          ColumnDefinition.of("small", "Int8"),
          ColumnDefinition.of("big", "UInt64"),
          ColumnDefinition.of("message", "String"),
          ColumnDefinition.of("codes", "Array(UInt16)"));

  private byte[] seedPayload;
  private byte[] mixedPayload;
  private RowEncoder seedEncoder;
  private RowEncoder mixedEncoder;

  @Setup
  public void setUp() {
    seedPayload = SEED_ROW.getBytes(StandardCharsets.UTF_8);
    mixedPayload = MIXED_ROW.getBytes(StandardCharsets.UTF_8);
    seedEncoder = RowEncoder.forTable(new TableSchema(new TableName("b", "seed"), SEED_COLUMNS));
    mixedEncoder = RowEncoder.forTable(new TableSchema(new TableName("b", "mixed"), MIXED_COLUMNS));
  }

  @Benchmark
  public int seedRow() throws Exception {
    return encode(seedEncoder, seedPayload);
  }

  @Benchmark
  public int mixedRow20Columns() throws Exception {
    return encode(mixedEncoder, mixedPayload);
  }

  /**
   * The same row with the look for fields no column takes that the unknown-fields column and schema
   * evolution add (the plain encode above is the hot path without them).
   */
  @Benchmark
  public int mixedRow20ColumnsFindingUnplacedFields() throws Exception {
    List<JsonNode> rows = JsonPayloads.rows(mixedPayload);
    int unplaced = 0;
    for (JsonNode row : rows) {
      unplaced += mixedEncoder.unplacedFields(row).size();
    }
    return out.encode(mixedEncoder, rows) + unplaced;
  }

  private int encode(RowEncoder encoder, byte[] payload) throws Exception {
    return out.encode(encoder, JsonPayloads.rows(payload));
  }
}
