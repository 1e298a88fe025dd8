package dev.pubsubclickhouse.testing.bigquery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * BigQuery on localhost, as far as the backfill job uses it, for its tests, its benchmarks and
 * trying it without a Google account: tables held in memory, served through the REST API
 * (datasets.get, tables.get/insert/testIamPermissions, tabledata.list with maxResults, startIndex
 * and pageToken, tabledata.insertAll, jobs.insert/get for queries and dry runs, with time travel,
 * and jobs.getQueryResults) and through the Storage Read API ({@link #storage()}, gRPC, Avro).
 * Faults can be injected per request path; every request is recorded.
 *
 * <pre>
 * java -cp benchmarks.jar dev.pubsubclickhouse.testing.bigquery.LocalBigQuery \
 *   [--port=9050] [--storagePort=9060] [--table=local:dataset1.logs] [--rows=1000] [--seed]
 * </pre>
 *
 * serves one table of {@link LogEvents} and prints {@code LOCAL_BIGQUERY rest=URL
 * storage=HOST:PORT} once it serves.
 */
public final class LocalBigQuery implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern TABLE =
      Pattern.compile(
          "/bigquery/v2/projects/([^/]+)/datasets/([^/]+)/tables/([^/]+)(/data|/insertAll)?");
  private static final Pattern TABLES =
      Pattern.compile("/bigquery/v2/projects/([^/]+)/datasets/([^/]+)/tables");
  private static final Pattern DATASET =
      Pattern.compile("/bigquery/v2/projects/([^/]+)/datasets/([^/]+)");
  private static final Pattern TEST_PERMISSIONS =
      Pattern.compile(
          "/bigquery/v2/projects/([^/]+)/datasets/([^/]+)/tables/([^/]+):testIamPermissions");
  private static final Pattern JOBS = Pattern.compile("/bigquery/v2/projects/([^/]+)/jobs");
  private static final Pattern JOB =
      Pattern.compile("/bigquery/v2/projects/([^/]+)/(jobs|queries)/([^/]+)");
  private static final Pattern TABLE_SPEC = Pattern.compile("([^:]+):([^.]+)\\.(.+)");
  private static final Pattern SNAPSHOT_QUERY =
      Pattern.compile(
          "SELECT \\* FROM `([^.`]+)\\.([^.`]+)\\.([^.`]+)`"
              + "(?: FOR SYSTEM_TIME AS OF TIMESTAMP_MILLIS\\((\\d+)\\))?(?: WHERE (.+))?");

  private record Fault(String pathPart, int status, int[] skip, int[] remaining) {}

  private record Hook(String pathPart, int[] remaining, Runnable action) {}

  private final String project;
  private final HttpServer rest;
  private final ExecutorService restThreads = Executors.newFixedThreadPool(8);
  private final StorageReadApi storage;
  private final Map<String, BigQueryTable> tables = new ConcurrentHashMap<>();
  private final Map<String, String> queryResults = new ConcurrentHashMap<>();
  private final Map<String, ObjectNode> jobs = new ConcurrentHashMap<>();
  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  private final List<Hook> hooks = new CopyOnWriteArrayList<>();
  private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
  private final List<JsonNode> insertedRows = new CopyOnWriteArrayList<>();
  private final AtomicInteger snapshots = new AtomicInteger();
  private final Set<String> missingDatasets = ConcurrentHashMap.newKeySet();
  private final Set<String> readOnlyTables = ConcurrentHashMap.newKeySet();
  private volatile int rowsPerAnswer = Integer.MAX_VALUE;

  private LocalBigQuery(String project, int port, int storagePort, int blockRows, int streamRows)
      throws IOException {
    this.project = project;
    this.rest = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
    rest.setExecutor(restThreads);
    rest.createContext("/", this::handle);
    this.storage = new StorageReadApi(this, storagePort, blockRows, streamRows);
    rest.start();
  }

  /**
   * For tests: any free ports, tables of {@code project} by default, small Storage Read API blocks
   * (7 rows) and streams (at most one per 10 rows), so that a few rows take several of each.
   */
  public static LocalBigQuery forTests(String project) throws IOException {
    return new LocalBigQuery(project, 0, 0, 7, 10);
  }

  /**
   * As a server of large tables: blocks of 10,000 rows, at most one stream per block.
   *
   * @param port REST port (0: any free port)
   * @param storagePort Storage Read API port (0: any free port)
   */
  public static LocalBigQuery serve(String project, int port, int storagePort) throws IOException {
    return new LocalBigQuery(project, port, storagePort, 10_000, 10_000);
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      int equals = arg.indexOf('=');
      options.put(
          equals < 0 ? arg.substring(2) : arg.substring(2, equals),
          equals < 0 ? "true" : arg.substring(equals + 1));
    }
    String table = options.getOrDefault("table", "local:dataset1.logs");
    if (!TABLE_SPEC.matcher(table).matches()) {
      throw new IllegalArgumentException("expected --table=project:dataset.table");
    }
    LocalBigQuery server =
        serve(
            table.substring(0, table.indexOf(':')),
            Integer.parseInt(options.getOrDefault("port", "9050")),
            Integer.parseInt(options.getOrDefault("storagePort", "9060")));
    server.put(
        table,
        LogEvents.table(
            Integer.parseInt(options.getOrDefault("rows", "1000")), options.containsKey("seed")));
    System.out.println(
        "LOCAL_BIGQUERY rest=" + server.endpoint() + " storage=" + server.storage().endpoint());
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    Thread.currentThread().join();
  }

  /** The REST API's root, for BIGQUERY_ENDPOINT. */
  public String endpoint() {
    return "http://127.0.0.1:" + rest.getAddress().getPort();
  }

  /** The Storage Read API of the same tables. */
  public StorageReadApi storage() {
    return storage;
  }

  /** Injected faults that no request has met yet, as "path part x times". */
  public List<String> unusedFaults() {
    return faults.stream()
        .filter(f -> f.remaining()[0] > 0)
        .map(f -> f.pathPart() + " x" + f.remaining()[0])
        .toList();
  }

  /** Each REST request as "METHOD path?query", in order. */
  public List<String> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  public List<String> requestsTo(String pathPart) {
    return requests().stream().filter(r -> r.contains(pathPart)).toList();
  }

  /** Rows sent to tabledata.insertAll, with their insertId. */
  public List<JsonNode> insertedRows() {
    return List.copyOf(insertedRows);
  }

  /** A new empty table {@code dataset.table} of the default project. */
  public BigQueryTable table(String dataset, String table, ArrayNode fields) {
    BigQueryTable t = new BigQueryTable(fields);
    tables.put(key(project, dataset, table), t);
    return t;
  }

  /** Serves {@code table} as {@code tableSpec} ({@code project:dataset.table}). */
  public BigQueryTable put(String tableSpec, BigQueryTable table) {
    Matcher spec = TABLE_SPEC.matcher(tableSpec);
    if (!spec.matches()) {
      throw new IllegalArgumentException("expected project:dataset.table, not " + tableSpec);
    }
    tables.put(key(spec.group(1), spec.group(2), spec.group(3)), table);
    return table;
  }

  /** A table of the default project, or null. */
  public BigQueryTable table(String dataset, String table) {
    return table(project, dataset, table);
  }

  /** A table, or null. */
  public BigQueryTable table(String projectId, String dataset, String table) {
    return tables.get(key(projectId, dataset, table));
  }

  /** The query, when run, has the rows of {@code dataset.table} as its result table. */
  public void queryResult(String sql, String dataset, String table) {
    queryResults.put(sql, key(project, dataset, table));
  }

  /**
   * The next {@code times} requests whose "METHOD path?query" contains {@code pathPart} fail with
   * {@code status}.
   */
  public void failNext(String pathPart, int status, int times) {
    failAfter(pathPart, 0, status, times);
  }

  /**
   * After {@code skip} requests whose path contains {@code pathPart}, fail the next {@code times}.
   */
  public void failAfter(String pathPart, int skip, int status, int times) {
    faults.add(new Fault(pathPart, status, new int[] {skip}, new int[] {times}));
  }

  /**
   * Runs {@code action} when the {@code nth} request (1-based) whose path contains {@code pathPart}
   * arrives.
   */
  public void onRequest(String pathPart, int nth, Runnable action) {
    hooks.add(new Hook(pathPart, new int[] {nth}, action));
  }

  /** datasets.get of {@code dataset} answers 404. */
  public void missingDataset(String dataset) {
    missingDatasets.add(dataset);
  }

  /** tables.testIamPermissions of {@code table} grants nothing. */
  public void readOnlyTable(String table) {
    readOnlyTables.add(table);
  }

  /**
   * tabledata.list answers at most {@code rows} rows whatever maxResults asks, as BigQuery does
   * when a page would exceed its size limit.
   */
  public void answerAtMostRows(int rows) {
    rowsPerAnswer = rows;
  }

  /** The tables the query jobs of the time-travel reads made, in order. */
  public List<BigQueryTable> snapshotTables() {
    return tables.entrySet().stream()
        .filter(e -> e.getKey().contains("|_anon|") && e.getKey().contains("_snapshot"))
        .sorted(Map.Entry.comparingByKey())
        .map(Map.Entry::getValue)
        .toList();
  }

  @Override
  public void close() {
    storage.close();
    rest.stop(0);
    restThreads.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Answer answer;
      try {
        answer = answer(exchange);
      } catch (Exception e) {
        answer = error(500, e.toString());
      }
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(answer.status(), answer.body().length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer.body());
      }
    }
  }

  private record Answer(int status, byte[] body) {}

  private Answer answer(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getRawPath();
    String rawQuery = exchange.getRequestURI().getRawQuery();
    String line = method + " " + path + (rawQuery == null ? "" : "?" + rawQuery);
    requests.add(line);
    for (Hook hook : hooks) {
      synchronized (hook) {
        if (line.contains(hook.pathPart()) && --hook.remaining()[0] == 0) {
          hook.action().run();
        }
      }
    }
    for (Fault fault : faults) {
      synchronized (fault) {
        if (line.contains(fault.pathPart())) {
          if (fault.skip()[0] > 0) {
            fault.skip()[0]--;
          } else if (fault.remaining()[0] > 0) {
            fault.remaining()[0]--;
            return error(fault.status(), "injected fault");
          }
        }
      }
    }
    Matcher m;
    if ((m = DATASET.matcher(path)).matches()) {
      if (missingDatasets.contains(m.group(2))) {
        return error(404, "Not found: Dataset " + m.group(1) + ":" + m.group(2));
      }
      ObjectNode dataset = JSON.createObjectNode().put("kind", "bigquery#dataset");
      dataset.put("id", m.group(1) + ":" + m.group(2));
      dataset
          .putObject("datasetReference")
          .put("projectId", m.group(1))
          .put("datasetId", m.group(2));
      return ok(dataset);
    }
    if ((m = TEST_PERMISSIONS.matcher(path)).matches()) {
      ObjectNode answer = JSON.createObjectNode();
      if (!readOnlyTables.contains(m.group(3))) {
        answer.set("permissions", body(exchange).path("permissions"));
      }
      return ok(answer);
    }
    if ((m = TABLE.matcher(path)).matches()) {
      BigQueryTable table = tables.get(key(m.group(1), m.group(2), m.group(3)));
      if (table == null) {
        return error(404, "Not found: Table " + m.group(1) + ":" + m.group(2) + "." + m.group(3));
      }
      if ("/data".equals(m.group(4))) {
        return new Answer(200, tableData(table, query(rawQuery)));
      }
      if ("/insertAll".equals(m.group(4))) {
        body(exchange).path("rows").forEach(insertedRows::add);
        return ok(JSON.createObjectNode().put("kind", "bigquery#tableDataInsertAllResponse"));
      }
      return ok(tableResource(m.group(1), m.group(2), m.group(3), table));
    }
    if ((m = TABLES.matcher(path)).matches() && "POST".equals(method)) {
      JsonNode body = body(exchange);
      String tableId = body.path("tableReference").path("tableId").asText();
      BigQueryTable table = new BigQueryTable((ArrayNode) body.path("schema").path("fields"));
      tables.put(key(m.group(1), m.group(2), tableId), table);
      return ok(tableResource(m.group(1), m.group(2), tableId, table));
    }
    if ((m = JOBS.matcher(path)).matches() && "POST".equals(method)) {
      return insertJob(m.group(1), (ObjectNode) body(exchange));
    }
    if ((m = JOB.matcher(path)).matches()) {
      ObjectNode job = jobs.get(m.group(3));
      if (job == null) {
        return error(404, "Not found: Job " + m.group(3));
      }
      if ("queries".equals(m.group(2))) {
        ObjectNode results =
            JSON.createObjectNode().put("kind", "bigquery#getQueryResultsResponse");
        results.set("jobReference", job.get("jobReference"));
        results.put("jobComplete", true);
        return ok(results);
      }
      return ok(job);
    }
    return error(404, "no such API in the BigQuery stand-in: " + method + " " + path);
  }

  private Answer insertJob(String jobProject, ObjectNode body) {
    ObjectNode configuration = (ObjectNode) body.path("configuration");
    String sql = configuration.path("query").path("query").asText();
    ObjectNode job = JSON.createObjectNode().put("kind", "bigquery#job");
    ObjectNode reference = body.path("jobReference").deepCopy();
    if (!reference.has("jobId")) {
      reference.put("jobId", "dry_run");
    }
    reference.put("projectId", jobProject);
    job.set("jobReference", reference);
    job.put("id", jobProject + ":" + reference.path("jobId").asText());
    ObjectNode statistics = job.putObject("statistics");
    statistics
        .put("creationTime", "1767000000000")
        .put("startTime", "1767000000000")
        .put("endTime", "1767000001000");
    ObjectNode queryStatistics = statistics.putObject("query");
    String jobId = reference.path("jobId").asText();
    boolean dryRun = configuration.path("dryRun").asBoolean(false);
    if (!dryRun && jobs.containsKey(jobId)) {
      return error(409, "Already Exists: Job " + jobProject + ":" + jobId);
    }
    Matcher snapshot = SNAPSHOT_QUERY.matcher(sql);
    String resultKey = queryResults.get(sql);
    BigQueryTable result;
    if (resultKey != null) {
      result = tables.get(resultKey);
    } else if (snapshot.matches()) {
      BigQueryTable source =
          tables.get(key(snapshot.group(1), snapshot.group(2), snapshot.group(3)));
      if (source == null) {
        return error(
            404,
            "Not found: Table "
                + snapshot.group(1)
                + ":"
                + snapshot.group(2)
                + "."
                + snapshot.group(3));
      }
      List<JsonNode> rows =
          snapshot.group(4) == null
              ? source.current()
              : source.snapshotAt(Long.parseLong(snapshot.group(4)));
      String where = snapshot.group(5);
      result =
          source.withRows(
              where == null
                  ? rows
                  : rows.stream()
                      .filter(r -> BigQueryRows.matches(source.fields, r, where))
                      .toList());
      if (!dryRun) {
        resultKey =
            key(jobProject, "_anon", snapshot.group(3) + "_snapshot" + snapshots.incrementAndGet());
        tables.put(resultKey, result);
      }
    } else {
      return error(400, "Syntax error: unknown query in the BigQuery stand-in");
    }
    if (dryRun) {
      job.putObject("status").put("state", "DONE");
      queryStatistics.putObject("schema").set("fields", result.fields);
      job.set("configuration", configuration);
      return ok(job);
    }
    String[] parts = resultKey.split("\\|");
    ObjectNode destination =
        ((ObjectNode) configuration.path("query")).putObject("destinationTable");
    destination.put("projectId", parts[0]).put("datasetId", parts[1]).put("tableId", parts[2]);
    job.set("configuration", configuration);
    // Done at the first jobs.get: the job has to be waited for, as on BigQuery.
    job.putObject("status").put("state", "RUNNING");
    jobs.put(jobId, job);
    ObjectNode answer = job.deepCopy();
    job.putObject("status").put("state", "DONE");
    return ok(answer);
  }

  /** A tabledata.list page; a uniform table's rows are encoded once per page size. */
  private byte[] tableData(BigQueryTable table, Map<String, String> query) {
    int max = Math.min(rowsPerAnswer, Integer.parseInt(query.getOrDefault("maxResults", "100000")));
    String token = query.get("pageToken");
    int start =
        token != null
            ? Integer.parseInt(token.substring("at-".length()))
            : Integer.parseInt(query.getOrDefault("startIndex", "0"));
    List<JsonNode> rows = table.rows;
    int end = Math.min(rows.size(), start + max);
    ObjectNode page = JSON.createObjectNode().put("kind", "bigquery#tableDataList");
    page.put("totalRows", Integer.toString(rows.size()));
    if (end < rows.size()) {
      page.put("pageToken", "at-" + end);
    }
    List<JsonNode> pageRows = rows.subList(Math.min(start, end), end);
    byte[] rowsJson =
        table.uniform
            ? table.encodings.computeIfAbsent("json:" + pageRows.size(), key -> bytes(pageRows))
            : bytes(pageRows);
    byte[] head = bytes(page);
    byte[] field = ",\"rows\":".getBytes(StandardCharsets.UTF_8);
    byte[] answer = new byte[head.length + field.length + rowsJson.length];
    System.arraycopy(head, 0, answer, 0, head.length - 1);
    System.arraycopy(field, 0, answer, head.length - 1, field.length);
    System.arraycopy(rowsJson, 0, answer, head.length - 1 + field.length, rowsJson.length);
    answer[answer.length - 1] = '}';
    return answer;
  }

  private static byte[] bytes(Object value) {
    try {
      return JSON.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ObjectNode tableResource(
      String projectId, String dataset, String tableId, BigQueryTable table) {
    ObjectNode resource = JSON.createObjectNode().put("kind", "bigquery#table");
    resource.put("id", projectId + ":" + dataset + "." + tableId);
    resource
        .putObject("tableReference")
        .put("projectId", projectId)
        .put("datasetId", dataset)
        .put("tableId", tableId);
    resource.putObject("schema").set("fields", table.fields);
    resource.put("numRows", Integer.toString(table.rows.size() - table.streamingRows));
    if (table.streamingRows > 0) {
      resource
          .putObject("streamingBuffer")
          .put("estimatedRows", Integer.toString(table.streamingRows))
          .put("oldestEntryTime", Long.toString(table.lastModified));
    }
    resource.put("type", table.type);
    resource.put("creationTime", "1766000000000");
    resource.put("lastModifiedTime", Long.toString(table.lastModified));
    return resource;
  }

  /** The request's JSON body; the client gzips what it sends. */
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

  private static Answer ok(JsonNode body) {
    return new Answer(200, bytes(body));
  }

  private static Answer error(int status, String message) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode error = body.putObject("error").put("code", status).put("message", message);
    error
        .putArray("errors")
        .addObject()
        .put("message", message)
        .put("reason", status >= 500 ? "backendError" : "invalid");
    return new Answer(status, bytes(body));
  }

  private static String key(String projectId, String dataset, String table) {
    return projectId + "|" + dataset + "|" + table;
  }
}
