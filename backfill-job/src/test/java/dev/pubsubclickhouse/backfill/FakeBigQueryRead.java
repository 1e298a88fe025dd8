package dev.pubsubclickhouse.backfill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.google.cloud.bigquery.storage.v1.AvroRows;
import com.google.cloud.bigquery.storage.v1.AvroSchema;
import com.google.cloud.bigquery.storage.v1.BigQueryReadGrpc;
import com.google.cloud.bigquery.storage.v1.CreateReadSessionRequest;
import com.google.cloud.bigquery.storage.v1.DataFormat;
import com.google.cloud.bigquery.storage.v1.ReadRowsRequest;
import com.google.cloud.bigquery.storage.v1.ReadRowsResponse;
import com.google.cloud.bigquery.storage.v1.ReadSession;
import com.google.cloud.bigquery.storage.v1.ReadStream;
import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * BigQuery's Storage Read API (the {@code BigQueryRead} gRPC service of the client library's own
 * service definitions) on a localhost port, serving the tables of a {@link FakeBigQuery} as real
 * Avro: CreateReadSession (snapshot time, row restriction, max stream count) and ReadRows from an
 * offset, in blocks of a few rows. A stream can be made to fail part way (UNAVAILABLE), as a broken
 * connection would; CreateReadSession and ReadRows can fail before answering.
 */
final class FakeBigQueryRead implements AutoCloseable {
  /** Rows per ReadRowsResponse: small, so that pages gather several blocks. */
  private static final int BLOCK_ROWS = 7;

  private record Session(Schema schema, List<List<JsonNode>> streams) {}

  private final FakeBigQuery bigQuery;
  private final Server server;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();
  private final AtomicInteger sessionCount = new AtomicInteger();
  private final List<String> reads = Collections.synchronizedList(new ArrayList<>());
  private final List<ReadSession> created = new CopyOnWriteArrayList<>();
  private final AtomicInteger failCreates = new AtomicInteger();
  private final AtomicInteger failReadsAtStart = new AtomicInteger();
  private volatile int breakAfterRows = -1;
  private final AtomicInteger breaks = new AtomicInteger();
  private volatile Status breakStatus = Status.UNAVAILABLE;
  private final List<Runnable> readHooks = new CopyOnWriteArrayList<>();
  private final AtomicInteger readCount = new AtomicInteger();

  FakeBigQueryRead(FakeBigQuery bigQuery) throws IOException {
    this.bigQuery = bigQuery;
    this.server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new Service())
            .build()
            .start();
  }

  /** {@code host:port}, for BIGQUERY_STORAGE_ENDPOINT. */
  String endpoint() {
    return "127.0.0.1:" + server.getPort();
  }

  /** Each ReadRows request as "stream@offset", in order. */
  List<String> reads() {
    synchronized (reads) {
      return List.copyOf(reads);
    }
  }

  List<ReadSession> createdSessions() {
    return List.copyOf(created);
  }

  /** The next {@code times} CreateReadSession calls fail with UNAVAILABLE. */
  void failCreates(int times) {
    failCreates.set(times);
  }

  /** The next {@code times} ReadRows calls fail with UNAVAILABLE before sending a row. */
  void failReadsAtStart(int times) {
    failReadsAtStart.set(times);
  }

  /** The next {@code times} ReadRows streams break with UNAVAILABLE once they sent {@code rows}. */
  void breakStreamsAfter(int rows, int times) {
    breakStreamsAfter(rows, times, Status.UNAVAILABLE);
  }

  /** The same with another status, e.g. one that is not worth a retry. */
  void breakStreamsAfter(int rows, int times, Status status) {
    breakStatus = status;
    breakAfterRows = rows;
    breaks.set(times);
  }

  /** Runs {@code action} when the {@code nth} ReadRows request (1-based) arrives. */
  void onRead(int nth, Runnable action) {
    readHooks.add(
        () -> {
          if (readCount.get() == nth) {
            action.run();
          }
        });
  }

  @Override
  public void close() {
    server.shutdownNow();
  }

  private final class Service extends BigQueryReadGrpc.BigQueryReadImplBase {
    @Override
    public void createReadSession(
        CreateReadSessionRequest request, StreamObserver<ReadSession> answer) {
      if (failCreates.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        answer.onError(Status.UNAVAILABLE.withDescription("injected fault").asRuntimeException());
        return;
      }
      ReadSession asked = request.getReadSession();
      String[] path = asked.getTable().split("/");
      FakeBigQuery.Table table = bigQuery.tableByKey(path[1], path[3], path[5]);
      if (table == null) {
        answer.onError(
            Status.NOT_FOUND
                .withDescription("Not found: " + asked.getTable())
                .asRuntimeException());
        return;
      }
      if (asked.getDataFormat() != DataFormat.AVRO) {
        answer.onError(Status.INVALID_ARGUMENT.withDescription("AVRO only").asRuntimeException());
        return;
      }
      List<JsonNode> rows =
          asked.hasTableModifiers()
              ? table.snapshotAt(
                  asked.getTableModifiers().getSnapshotTime().getSeconds() * 1000
                      + asked.getTableModifiers().getSnapshotTime().getNanos() / 1_000_000)
              : List.copyOf(table.rows);
      String restriction = asked.getReadOptions().getRowRestriction();
      if (!restriction.isEmpty()) {
        rows =
            rows.stream().filter(r -> FakeBigQuery.matches(table.fields, r, restriction)).toList();
      }
      // Contiguous slices, at most one per 10 rows, as BigQuery gives fewer streams for less data.
      int count = Math.max(1, Math.min(request.getMaxStreamCount(), (rows.size() + 9) / 10));
      List<List<JsonNode>> streams = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        streams.add(rows.subList(i * rows.size() / count, (i + 1) * rows.size() / count));
      }
      String name =
          "projects/" + path[1] + "/locations/us/sessions/s" + sessionCount.incrementAndGet();
      Schema schema = avroSchema(table.fields);
      sessions.put(name, new Session(schema, streams));
      ReadSession.Builder session =
          asked.toBuilder()
              .setName(name)
              .setAvroSchema(AvroSchema.newBuilder().setSchema(schema.toString()))
              .setEstimatedRowCount(rows.size());
      for (int i = 0; i < streams.size(); i++) {
        session.addStreams(ReadStream.newBuilder().setName(name + "/streams/" + i));
      }
      ReadSession result = session.build();
      created.add(result);
      answer.onNext(result);
      answer.onCompleted();
    }

    @Override
    public void readRows(ReadRowsRequest request, StreamObserver<ReadRowsResponse> answer) {
      reads.add(request.getReadStream() + "@" + request.getOffset());
      readCount.incrementAndGet();
      readHooks.forEach(Runnable::run);
      if (failReadsAtStart.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        answer.onError(Status.UNAVAILABLE.withDescription("injected fault").asRuntimeException());
        return;
      }
      int at = request.getReadStream().indexOf("/streams/");
      Session session = sessions.get(request.getReadStream().substring(0, at));
      if (session == null) {
        answer.onError(
            Status.NOT_FOUND.withDescription("session expired or unknown").asRuntimeException());
        return;
      }
      List<JsonNode> rows =
          session.streams().get(Integer.parseInt(request.getReadStream().substring(at + 9)));
      int sent = 0;
      boolean breaking = breakAfterRows >= 0 && breaks.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
      for (int from = (int) request.getOffset(); from < rows.size(); from += BLOCK_ROWS) {
        if (breaking && sent >= breakAfterRows) {
          answer.onError(
              breakStatus.withDescription("stream broken (injected)").asRuntimeException());
          return;
        }
        List<JsonNode> block = rows.subList(from, Math.min(rows.size(), from + BLOCK_ROWS));
        answer.onNext(
            ReadRowsResponse.newBuilder()
                .setRowCount(block.size())
                .setAvroRows(
                    AvroRows.newBuilder()
                        .setSerializedBinaryRows(encode(session.schema(), block))
                        .setRowCount(block.size()))
                .build());
        sent += block.size();
      }
      answer.onCompleted();
    }
  }

  /** BigQuery's Avro schema of a table, as its Storage Read API documents the mapping. */
  static Schema avroSchema(ArrayNode fields) {
    return record("__root__", fields);
  }

  private static Schema record(String name, ArrayNode fields) {
    List<Schema.Field> avroFields = new ArrayList<>();
    for (JsonNode field : fields) {
      Schema type = valueSchema(field);
      String mode = field.path("mode").asText("NULLABLE");
      if ("REPEATED".equals(mode)) {
        type = Schema.createArray(type);
      } else if ("NULLABLE".equals(mode)) {
        type = Schema.createUnion(Schema.create(Schema.Type.NULL), type);
      }
      avroFields.add(new Schema.Field(field.path("name").asText(), type));
    }
    return Schema.createRecord(name, null, "fake", false, avroFields);
  }

  private static Schema valueSchema(JsonNode field) {
    String type = field.path("type").asText();
    return switch (type) {
      case "INTEGER", "INT64" -> Schema.create(Schema.Type.LONG);
      case "FLOAT", "FLOAT64" -> Schema.create(Schema.Type.DOUBLE);
      case "BOOLEAN", "BOOL" -> Schema.create(Schema.Type.BOOLEAN);
      case "NUMERIC" -> LogicalTypes.decimal(38, 9).addToSchema(Schema.create(Schema.Type.BYTES));
      case "BIGNUMERIC" ->
          LogicalTypes.decimal(77, 38).addToSchema(Schema.create(Schema.Type.BYTES));
      case "BYTES" -> Schema.create(Schema.Type.BYTES);
      case "DATE" -> LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
      case "TIME" -> LogicalTypes.timeMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case "TIMESTAMP" ->
          LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case "DATETIME" -> {
        Schema datetime = Schema.create(Schema.Type.STRING);
        datetime.addProp("logicalType", "datetime");
        yield datetime;
      }
      case "RECORD", "STRUCT" ->
          record("__" + field.path("name").asText(), (ArrayNode) field.path("fields"));
      default -> {
        // STRING, JSON, GEOGRAPHY: text, JSON and GEOGRAPHY with their sqlType.
        Schema text = Schema.create(Schema.Type.STRING);
        if (!"STRING".equals(type)) {
          text.addProp("sqlType", type);
        }
        yield text;
      }
    };
  }

  private static ByteString encode(Schema schema, List<JsonNode> rows) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
      GenericDatumWriter<Object> writer = new GenericDatumWriter<>(schema);
      for (JsonNode row : rows) {
        writer.write(value(schema, row), out);
      }
      out.flush();
      return ByteString.copyFrom(bytes.toByteArray());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A tabledata.list row ({@code {"f":[{"v":...}]}}) as the Avro record of {@code schema}. */
  private static GenericData.Record value(Schema schema, JsonNode row) {
    GenericData.Record record = new GenericData.Record(schema);
    JsonNode cells = row.path("f");
    for (Schema.Field field : schema.getFields()) {
      record.put(field.pos(), cell(field.schema(), cells.path(field.pos()).path("v")));
    }
    return record;
  }

  private static Object cell(Schema type, JsonNode value) {
    if (type.getType() == Schema.Type.UNION) {
      return value.isNull() || value.isMissingNode() ? null : cell(type.getTypes().get(1), value);
    }
    if (type.getType() == Schema.Type.ARRAY) {
      List<Object> elements = new ArrayList<>();
      if (value.isArray()) {
        for (JsonNode element : value) {
          elements.add(cell(type.getElementType(), element.path("v")));
        }
      }
      return elements;
    }
    if (type.getType() == Schema.Type.RECORD) {
      return value(type, value);
    }
    String text = value.asText();
    String logical = type.getLogicalType() == null ? null : type.getLogicalType().getName();
    return switch (type.getType()) {
      case LONG ->
          "time-micros".equals(logical)
              ? LocalTime.parse(text).toNanoOfDay() / 1_000L
              : Long.parseLong(text);
      case INT -> (int) LocalDate.parse(text).toEpochDay();
      case DOUBLE -> Double.parseDouble(text);
      case BOOLEAN -> Boolean.parseBoolean(text);
      case BYTES ->
          type.getLogicalType() instanceof LogicalTypes.Decimal decimal
              ? ByteBuffer.wrap(
                  new BigDecimal(text).setScale(decimal.getScale()).unscaledValue().toByteArray())
              : ByteBuffer.wrap(Base64.getDecoder().decode(text));
      default -> text;
    };
  }
}
