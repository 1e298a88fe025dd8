package dev.pubsubclickhouse.backfill.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.cloud.bigquery.storage.v1.AvroRows;
import com.google.cloud.bigquery.storage.v1.AvroSchema;
import com.google.cloud.bigquery.storage.v1.BigQueryReadGrpc;
import com.google.cloud.bigquery.storage.v1.CreateReadSessionRequest;
import com.google.cloud.bigquery.storage.v1.ReadRowsRequest;
import com.google.cloud.bigquery.storage.v1.ReadRowsResponse;
import com.google.cloud.bigquery.storage.v1.ReadSession;
import com.google.cloud.bigquery.storage.v1.ReadStream;
import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.apache.avro.Schema;

/**
 * A local stand-in for BigQuery, so that the job runs on a machine with no Google account: one
 * table of log events held in memory, served through the REST calls the job makes (tables and
 * datasets, tabledata.list, query jobs that read the table as of a time, the dead-letter table's
 * calls) and through the Storage Read API (read sessions and Avro streams, gRPC).
 *
 * <pre>
 * java -cp backfill-job.jar dev.pubsubclickhouse.backfill.local.LocalBigQuery \
 *   [--port=9050] [--storagePort=9060] [--table=local:dataset1.logs] [--rows=1000] [--seed]
 * </pre>
 *
 * The table is {@code (event_time DATETIME, service STRING, level STRING, message STRING)}; row i
 * is an event i seconds after 2025-12-30 12:00:00, or with {@code --seed} the same row every time
 * (for benchmarks: the pages and blocks are then encoded once). It does not change, so its snapshot
 * at any time is itself; a query with a WHERE is refused. Prints {@code LOCAL_BIGQUERY rest=URL
 * storage=HOST:PORT} once it serves.
 */
public final class LocalBigQuery implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] SERVICES = {"api", "web", "worker"};
  private static final String[] LEVELS = {"INFO", "INFO", "WARN", "ERROR"};
  private static final int BLOCK_ROWS = 10_000;
  private static final Pattern API =
      Pattern.compile(
          "/bigquery/v2/projects/([^/]+)(/datasets/([^/]+)(/tables(/([^/:]+))?)?)?(.*)");
  private static final Pattern TIME_TRAVEL =
      Pattern.compile(
          "SELECT \\* FROM `([^.`]+)\\.([^.`]+)\\.([^.`]+)`"
              + "(?: FOR SYSTEM_TIME AS OF TIMESTAMP_MILLIS\\(\\d+\\))?");

  private final String project;
  private final String dataset;
  private final String table;
  private final long rows;
  private final boolean seed;
  private final ArrayNode fields;
  private final Schema avroSchema;
  private final HttpServer rest;
  private final Server storage;
  private final Map<String, ObjectNode> jobs = new ConcurrentHashMap<>();
  private final Map<String, JsonNode> createdTables = new ConcurrentHashMap<>();
  private final Map<Integer, byte[]> seedPages = new ConcurrentHashMap<>();
  private final Map<Integer, ByteString> seedBlocks = new ConcurrentHashMap<>();
  private final AtomicInteger sessions = new AtomicInteger();
  private final AtomicLong deadLetters = new AtomicLong();

  /**
   * @param tableSpec {@code project:dataset.table}
   * @param port REST port (0: any free port)
   * @param storagePort Storage Read API port (0: any free port)
   */
  public LocalBigQuery(String tableSpec, long rows, boolean seed, int port, int storagePort)
      throws IOException {
    Matcher spec = Pattern.compile("([^:]+):([^.]+)\\.(.+)").matcher(tableSpec);
    if (!spec.matches()) {
      throw new IllegalArgumentException("expected --table=project:dataset.table");
    }
    this.project = spec.group(1);
    this.dataset = spec.group(2);
    this.table = spec.group(3);
    this.rows = rows;
    this.seed = seed;
    this.fields = JSON.createArrayNode();
    for (String[] field :
        new String[][] {
          {"event_time", "DATETIME"},
          {"service", "STRING"},
          {"level", "STRING"},
          {"message", "STRING"}
        }) {
      fields.addObject().put("name", field[0]).put("type", field[1]).put("mode", "NULLABLE");
    }
    this.avroSchema = AvroPayloads.schema(fields);
    this.rest = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
    rest.setExecutor(Executors.newFixedThreadPool(8));
    rest.createContext("/", this::handle);
    rest.start();
    this.storage =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", storagePort))
            .addService(new Read())
            .build()
            .start();
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      int equals = arg.indexOf('=');
      options.put(
          equals < 0 ? arg.substring(2) : arg.substring(2, equals),
          equals < 0 ? "true" : arg.substring(equals + 1));
    }
    LocalBigQuery server =
        new LocalBigQuery(
            options.getOrDefault("table", "local:dataset1.logs"),
            Long.parseLong(options.getOrDefault("rows", "1000")),
            options.containsKey("seed"),
            Integer.parseInt(options.getOrDefault("port", "9050")),
            Integer.parseInt(options.getOrDefault("storagePort", "9060")));
    System.out.println(
        "LOCAL_BIGQUERY rest=" + server.restUrl() + " storage=" + server.storageEndpoint());
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    Thread.currentThread().join();
  }

  public String restUrl() {
    return "http://127.0.0.1:" + rest.getAddress().getPort();
  }

  public String storageEndpoint() {
    return "127.0.0.1:" + storage.getPort();
  }

  /** Rows sent to dead-letter tables with tabledata.insertAll. */
  public long deadLetters() {
    return deadLetters.get();
  }

  @Override
  public void close() {
    storage.shutdownNow();
    rest.stop(0);
  }

  /** Row i in tabledata.list form. */
  private ObjectNode row(long i) {
    long second = seed ? 0 : i;
    String time = java.time.LocalDateTime.of(2025, 12, 30, 12, 0).plusSeconds(second).toString();
    ObjectNode row = JSON.createObjectNode();
    ArrayNode cells = row.putArray("f");
    cells.addObject().put("v", time.length() == 16 ? time + ":00" : time);
    cells.addObject().put("v", SERVICES[(int) (second % SERVICES.length)]);
    cells.addObject().put("v", LEVELS[(int) (second % LEVELS.length)]);
    cells.addObject().put("v", seed ? "PRE-DATAFLOW TEST" : "event " + i);
    return row;
  }

  private List<JsonNode> rowsOf(long from, long to) {
    return java.util.stream.LongStream.range(from, to).mapToObj(i -> (JsonNode) row(i)).toList();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getRawPath();
      Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
      Matcher m = API.matcher(path);
      if (!m.matches()) {
        send(exchange, 404, error(404, "not a BigQuery API path: " + path));
        return;
      }
      String rest = m.group(7);
      if (m.group(2) == null && rest.equals("/jobs") && "POST".equals(method)) {
        send(exchange, 200, insertJob((ObjectNode) body(exchange)));
      } else if (m.group(2) == null && rest.startsWith("/jobs/")) {
        ObjectNode job = jobs.get(rest.substring("/jobs/".length()));
        send(exchange, job == null ? 404 : 200, job == null ? error(404, "Not found: Job") : job);
      } else if (m.group(4) == null) {
        ObjectNode resource = JSON.createObjectNode().put("kind", "bigquery#dataset");
        resource
            .putObject("datasetReference")
            .put("projectId", m.group(1))
            .put("datasetId", m.group(3));
        send(exchange, 200, resource);
      } else if (m.group(6) == null && "POST".equals(method)) {
        JsonNode created = body(exchange);
        String id = created.path("tableReference").path("tableId").asText();
        createdTables.put(m.group(3) + "." + id, created.path("schema").path("fields"));
        send(
            exchange,
            200,
            tableResource(m.group(1), m.group(3), id, created.path("schema").path("fields"), 0));
      } else if (rest.equals(":testIamPermissions")) {
        send(
            exchange,
            200,
            JSON.createObjectNode().set("permissions", body(exchange).path("permissions")));
      } else if (rest.equals("/insertAll")) {
        deadLetters.addAndGet(body(exchange).path("rows").size());
        send(
            exchange,
            200,
            JSON.createObjectNode().put("kind", "bigquery#tableDataInsertAllResponse"));
      } else if (!isServed(m.group(3), m.group(6))) {
        JsonNode created = createdTables.get(m.group(3) + "." + m.group(6));
        if (created != null && rest.isEmpty()) {
          send(exchange, 200, tableResource(m.group(1), m.group(3), m.group(6), created, 0));
        } else {
          send(
              exchange,
              404,
              error(404, "Not found: Table " + m.group(1) + ":" + m.group(3) + "." + m.group(6)));
        }
      } else if (rest.equals("/data")) {
        sendRaw(exchange, page(query));
      } else {
        send(exchange, 200, tableResource(project, dataset, table, fields, rows));
      }
    } catch (RuntimeException e) {
      send(exchange, 500, error(500, e.toString()));
    }
  }

  private boolean isServed(String datasetId, String tableId) {
    return dataset.equals(datasetId) && table.equals(tableId);
  }

  private ObjectNode insertJob(ObjectNode body) {
    ObjectNode configuration = (ObjectNode) body.path("configuration");
    String sql = configuration.path("query").path("query").asText();
    ObjectNode reference = body.path("jobReference").deepCopy();
    reference.put("projectId", project);
    String jobId = reference.path("jobId").asText("dry_run");
    Matcher read = TIME_TRAVEL.matcher(sql);
    if (!read.matches() || !isServed(read.group(2), read.group(3))) {
      return error(
          400,
          "LocalBigQuery answers only SELECT * FROM `"
              + project
              + "."
              + dataset
              + "."
              + table
              + "` [FOR SYSTEM_TIME AS OF ...]");
    }
    ObjectNode job = JSON.createObjectNode().put("kind", "bigquery#job");
    job.set("jobReference", reference);
    job.putObject("status").put("state", "DONE");
    ObjectNode statistics = job.putObject("statistics");
    statistics
        .put("creationTime", "1767000000000")
        .put("startTime", "1767000000000")
        .put("endTime", "1767000000000");
    ObjectNode queryStatistics = statistics.putObject("query");
    if (configuration.path("dryRun").asBoolean(false)) {
      queryStatistics.putObject("schema").set("fields", fields);
      job.set("configuration", configuration);
      return job;
    }
    // The table does not change: as of any time, its rows are the table itself.
    ((ObjectNode) configuration.path("query"))
        .putObject("destinationTable")
        .put("projectId", project)
        .put("datasetId", dataset)
        .put("tableId", table);
    job.set("configuration", configuration);
    ObjectNode earlier = jobs.putIfAbsent(jobId, job);
    return earlier == null ? job : error(409, "Already Exists: Job " + project + ":" + jobId);
  }

  private byte[] page(Map<String, String> query) {
    int max = Integer.parseInt(query.getOrDefault("maxResults", "100000"));
    String token = query.get("pageToken");
    long start =
        token != null
            ? Long.parseLong(token)
            : Long.parseLong(query.getOrDefault("startIndex", "0"));
    long end = Math.min(rows, start + max);
    int count = (int) Math.max(0, end - start);
    String head =
        "{\"kind\":\"bigquery#tableDataList\",\"totalRows\":\""
            + rows
            + "\""
            + (end < rows ? ",\"pageToken\":\"" + end + "\"" : "")
            + ",\"rows\":";
    byte[] body;
    if (seed) {
      body = seedPages.computeIfAbsent(count, n -> rowsJson(rowsOf(0, n)));
    } else {
      body = rowsJson(rowsOf(start, end));
    }
    byte[] prefix = head.getBytes(StandardCharsets.UTF_8);
    byte[] page = new byte[prefix.length + body.length + 1];
    System.arraycopy(prefix, 0, page, 0, prefix.length);
    System.arraycopy(body, 0, page, prefix.length, body.length);
    page[page.length - 1] = '}';
    return page;
  }

  private static byte[] rowsJson(List<JsonNode> rows) {
    try {
      return JSON.writeValueAsBytes(rows);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private ObjectNode tableResource(
      String projectId, String datasetId, String tableId, JsonNode schema, long numRows) {
    ObjectNode resource = JSON.createObjectNode().put("kind", "bigquery#table");
    resource.put("id", projectId + ":" + datasetId + "." + tableId);
    resource
        .putObject("tableReference")
        .put("projectId", projectId)
        .put("datasetId", datasetId)
        .put("tableId", tableId);
    resource.putObject("schema").set("fields", schema);
    resource.put("numRows", Long.toString(numRows));
    resource.put("type", "TABLE");
    resource.put("creationTime", "1767000000000");
    resource.put("lastModifiedTime", "1767000000000");
    return resource;
  }

  private static ObjectNode error(int status, String message) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode error = body.putObject("error").put("code", status).put("message", message);
    error
        .putArray("errors")
        .addObject()
        .put("message", message)
        .put("reason", status >= 500 ? "backendError" : "invalid");
    return body;
  }

  private static JsonNode body(HttpExchange exchange) throws IOException {
    InputStream in = exchange.getRequestBody();
    if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
      in = new GZIPInputStream(in);
    }
    return JSON.readTree(in.readAllBytes());
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> query = new HashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int equals = pair.indexOf('=');
        if (equals > 0) {
          query.put(
              pair.substring(0, equals),
              URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
        }
      }
    }
    return query;
  }

  private static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
    int code = body.has("error") ? body.path("error").path("code").asInt(status) : status;
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static void sendRaw(HttpExchange exchange, byte[] bytes) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** The Storage Read API: contiguous streams of the table, Avro blocks of 10,000 rows. */
  private final class Read extends BigQueryReadGrpc.BigQueryReadImplBase {
    @Override
    public void createReadSession(
        CreateReadSessionRequest request, StreamObserver<ReadSession> answer) {
      ReadSession asked = request.getReadSession();
      String[] path = asked.getTable().split("/");
      if (path.length < 6 || !isServed(path[3], path[5])) {
        answer.onError(
            Status.NOT_FOUND
                .withDescription("Not found: " + asked.getTable())
                .asRuntimeException());
        return;
      }
      if (!asked.getReadOptions().getRowRestriction().isEmpty()) {
        answer.onError(
            Status.INVALID_ARGUMENT
                .withDescription("LocalBigQuery reads whole tables: no row restriction")
                .asRuntimeException());
        return;
      }
      int streams =
          (int)
              Math.max(
                  1,
                  Math.min(
                      Math.max(1, request.getMaxStreamCount()),
                      (rows + BLOCK_ROWS - 1) / BLOCK_ROWS));
      String name =
          "projects/" + project + "/locations/local/sessions/s" + sessions.incrementAndGet();
      ReadSession.Builder session =
          asked.toBuilder()
              .setName(name)
              .setAvroSchema(AvroSchema.newBuilder().setSchema(avroSchema.toString()))
              .setEstimatedRowCount(rows);
      for (int i = 0; i < streams; i++) {
        session.addStreams(
            ReadStream.newBuilder().setName(name + "/streams/" + i + "-of-" + streams));
      }
      answer.onNext(session.build());
      answer.onCompleted();
    }

    @Override
    public void readRows(ReadRowsRequest request, StreamObserver<ReadRowsResponse> answer) {
      Matcher stream =
          Pattern.compile(".*/streams/(\\d+)-of-(\\d+)").matcher(request.getReadStream());
      if (!stream.matches()) {
        answer.onError(Status.NOT_FOUND.withDescription("no such stream").asRuntimeException());
        return;
      }
      int index = Integer.parseInt(stream.group(1));
      int count = Integer.parseInt(stream.group(2));
      long first = rows * index / count;
      long end = rows * (index + 1) / count;
      for (long from = first + request.getOffset(); from < end; from += BLOCK_ROWS) {
        int size = (int) Math.min(BLOCK_ROWS, end - from);
        long at = from;
        ByteString block =
            seed
                ? seedBlocks.computeIfAbsent(
                    size, n -> ByteString.copyFrom(AvroPayloads.encode(avroSchema, rowsOf(0, n))))
                : ByteString.copyFrom(AvroPayloads.encode(avroSchema, rowsOf(at, at + size)));
        answer.onNext(
            ReadRowsResponse.newBuilder()
                .setRowCount(size)
                .setAvroRows(AvroRows.newBuilder().setSerializedBinaryRows(block).setRowCount(size))
                .build());
      }
      answer.onCompleted();
    }
  }
}
