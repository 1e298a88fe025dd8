package dev.pubsubclickhouse.testing.bigquery;

import com.fasterxml.jackson.databind.JsonNode;
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
import com.google.protobuf.Timestamp;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;

/**
 * BigQuery's Storage Read API (the {@code BigQueryRead} gRPC service of the client library's own
 * service definitions) on a localhost port, serving the tables of a {@link LocalBigQuery} as real
 * Avro: CreateReadSession (snapshot time, row restriction, max stream count) and ReadRows from an
 * offset, in blocks of rows. A stream can be made to fail part way, as a broken connection would;
 * CreateReadSession and ReadRows can fail before answering.
 */
public final class StorageReadApi implements AutoCloseable {
  /** Names this server's read sessions apart from an earlier run's. */
  private static final String STARTED = Long.toString(System.currentTimeMillis(), 36);

  private record Session(BigQueryTable table, Schema schema, List<List<JsonNode>> streams) {}

  private final LocalBigQuery bigQuery;
  private final int blockRows;
  private final int streamRows;
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
  private volatile Duration sessionLifetime = Duration.ofHours(6);

  /**
   * @param blockRows rows per ReadRowsResponse
   * @param streamRows a session has at most one stream per this many rows, as BigQuery gives fewer
   *     streams for less data
   */
  StorageReadApi(LocalBigQuery bigQuery, int port, int blockRows, int streamRows)
      throws IOException {
    this.bigQuery = bigQuery;
    this.blockRows = blockRows;
    this.streamRows = streamRows;
    this.server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
            .addService(new Service())
            .build()
            .start();
  }

  /** {@code host:port}, for BIGQUERY_STORAGE_ENDPOINT. */
  public String endpoint() {
    return "127.0.0.1:" + server.getPort();
  }

  /** Each ReadRows request as "stream@offset", in order. */
  public List<String> reads() {
    synchronized (reads) {
      return List.copyOf(reads);
    }
  }

  public List<ReadSession> createdSessions() {
    return List.copyOf(created);
  }

  /** The next {@code times} CreateReadSession calls fail with UNAVAILABLE. */
  public void failCreates(int times) {
    failCreates.set(times);
  }

  /** The next {@code times} ReadRows calls fail with UNAVAILABLE before sending a row. */
  public void failReadsAtStart(int times) {
    failReadsAtStart.set(times);
  }

  /** The next {@code times} ReadRows streams break with UNAVAILABLE once they sent {@code rows}. */
  public void breakStreamsAfter(int rows, int times) {
    breakStreamsAfter(rows, times, Status.UNAVAILABLE);
  }

  /** The same with another status, e.g. one that is not worth a retry. */
  public void breakStreamsAfter(int rows, int times, Status status) {
    breakStatus = status;
    breakAfterRows = rows;
    breaks.set(times);
  }

  /** Sessions created from now on expire this long after they are made (BigQuery: 6 hours). */
  public void sessionLifetime(Duration lifetime) {
    sessionLifetime = lifetime;
  }

  /** Runs {@code action} when the {@code nth} ReadRows request (1-based) arrives. */
  public void onRead(int nth, Runnable action) {
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

  private ByteString block(Session session, List<JsonNode> rows) {
    if (!session.table().uniform) {
      return ByteString.copyFrom(AvroPayloads.encode(session.schema(), rows));
    }
    return UnsafeByteOperations.unsafeWrap(
        session
            .table()
            .encodings
            .computeIfAbsent(
                "avro:" + rows.size(), key -> AvroPayloads.encode(session.schema(), rows)));
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
      BigQueryTable table = path.length < 6 ? null : bigQuery.table(path[1], path[3], path[5]);
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
              : table.current();
      String restriction = asked.getReadOptions().getRowRestriction();
      if (!restriction.isEmpty()) {
        rows =
            rows.stream().filter(r -> BigQueryRows.matches(table.fields, r, restriction)).toList();
      }
      int count =
          Math.max(
              1,
              Math.min(request.getMaxStreamCount(), (rows.size() + streamRows - 1) / streamRows));
      List<List<JsonNode>> streams = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        streams.add(rows.subList(i * rows.size() / count, (i + 1) * rows.size() / count));
      }
      // Unique across restarts, as BigQuery's are: the job's checkpoints name streams by session.
      String name =
          "projects/"
              + path[1]
              + "/locations/us/sessions/"
              + STARTED
              + "-"
              + sessionCount.incrementAndGet();
      Schema schema = AvroPayloads.schema(table.fields);
      sessions.put(name, new Session(table, schema, streams));
      ReadSession.Builder session =
          asked.toBuilder()
              .setName(name)
              .setAvroSchema(AvroSchema.newBuilder().setSchema(schema.toString()))
              .setEstimatedRowCount(rows.size())
              .setExpireTime(
                  Timestamp.newBuilder()
                      .setSeconds(Instant.now().plus(sessionLifetime).getEpochSecond()));
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
      Session session = at < 0 ? null : sessions.get(request.getReadStream().substring(0, at));
      if (session == null) {
        answer.onError(
            Status.NOT_FOUND.withDescription("session expired or unknown").asRuntimeException());
        return;
      }
      List<JsonNode> rows =
          session.streams().get(Integer.parseInt(request.getReadStream().substring(at + 9)));
      int sent = 0;
      boolean breaking = breakAfterRows >= 0 && breaks.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
      for (int from = (int) request.getOffset(); from < rows.size(); from += blockRows) {
        if (breaking && sent >= breakAfterRows) {
          answer.onError(
              breakStatus.withDescription("stream broken (injected)").asRuntimeException());
          return;
        }
        List<JsonNode> block = rows.subList(from, Math.min(rows.size(), from + blockRows));
        answer.onNext(
            ReadRowsResponse.newBuilder()
                .setRowCount(block.size())
                .setAvroRows(
                    AvroRows.newBuilder()
                        .setSerializedBinaryRows(block(session, block))
                        .setRowCount(block.size()))
                .build());
        sent += block.size();
      }
      answer.onCompleted();
    }
  }
}
