package dev.pubsubclickhouse.backfill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;

/**
 * BigQuery's REST API as far as the backfill uses it, served by MockWebServer from tables held in
 * memory: tables.get/insert, tabledata.list (maxResults, startIndex, pageToken),
 * tabledata.insertAll, jobs.insert/get (query and dry run) and jobs.getQueryResults. Faults can be
 * injected per path.
 */
final class FakeBigQuery implements AutoCloseable {
  static final String PROJECT = "test-project";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
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

  /**
   * A table: its schema fields (REST form), rows in f/v form, and its last modification. Rows added
   * to {@code rows} directly were always there; {@link #append} and {@link #update} record when, so
   * that {@link #snapshotAt} can answer BigQuery's time travel.
   */
  static final class Table {
    final ArrayNode fields;
    final List<JsonNode> rows = new CopyOnWriteArrayList<>();
    volatile long lastModified = 1_767_000_000_000L;
    String type = "TABLE";

    /** Rows of {@link #rows} still in the streaming buffer: not in numRows. */
    volatile int streamingRows;

    private final List<Change> changes = new ArrayList<>();

    private record Change(long at, int index, JsonNode before) {}

    Table(ArrayNode fields) {
      this.fields = fields;
    }

    /** Appends a row now, as a streaming insert or a load job would. */
    synchronized void append(JsonNode row) {
      long now = tick();
      rows.add(row);
      changes.add(new Change(now, rows.size() - 1, null));
      lastModified = now;
    }

    /**
     * Appends a row as a streaming insert: readable at once, in the streaming buffer, and (as
     * BigQuery may) without a new last-modified time or row count.
     */
    synchronized void stream(JsonNode row) {
      rows.add(row);
      streamingRows++;
    }

    /** Changes row {@code index} now, as a DML UPDATE would. */
    synchronized void update(int index, JsonNode row) {
      long now = tick();
      changes.add(new Change(now, index, rows.get(index)));
      rows.set(index, row);
      lastModified = now;
    }

    /** The rows as they were at {@code millis}: changes after it undone, newest first. */
    synchronized List<JsonNode> snapshotAt(long millis) {
      List<JsonNode> snapshot = new ArrayList<>(rows);
      for (int i = changes.size() - 1; i >= 0; i--) {
        Change change = changes.get(i);
        if (change.at() <= millis) {
          break;
        }
        if (change.before() == null) {
          snapshot.remove(change.index());
        } else {
          snapshot.set(change.index(), change.before());
        }
      }
      return snapshot;
    }

    /**
     * A fresh millisecond, so that a change is never at the same time as a snapshot taken before
     * it.
     */
    private static long tick() {
      long start = System.currentTimeMillis();
      long now;
      while ((now = System.currentTimeMillis()) == start) {
        Thread.onSpinWait();
      }
      return now;
    }
  }

  private record Fault(String pathPart, int status, int[] skip, int[] remaining) {}

  private record Hook(String pathPart, int[] remaining, Runnable action) {}

  private final MockWebServer server = new MockWebServer();
  private final Map<String, Table> tables = new ConcurrentHashMap<>();
  private final Map<String, String> queryResults = new ConcurrentHashMap<>();
  private final Map<String, ObjectNode> jobs = new ConcurrentHashMap<>();
  private final List<Fault> faults = new CopyOnWriteArrayList<>();
  private final List<Hook> hooks = new CopyOnWriteArrayList<>();
  private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
  private final List<JsonNode> insertedRows = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger snapshots =
      new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.Set<String> missingDatasets = ConcurrentHashMap.newKeySet();
  private final java.util.Set<String> readOnlyTables = ConcurrentHashMap.newKeySet();
  private volatile int rowsPerAnswer = Integer.MAX_VALUE;

  FakeBigQuery() throws IOException {
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            try {
              return handle(request);
            } catch (Exception e) {
              return error(500, e.toString());
            }
          }
        });
    server.start();
  }

  String endpoint() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** Injected faults that no request has met yet, as "path part x times". */
  List<String> unusedFaults() {
    return faults.stream()
        .filter(f -> f.remaining()[0] > 0)
        .map(f -> f.pathPart() + " x" + f.remaining()[0])
        .toList();
  }

  /** Each request as "METHOD path?query", in order. */
  List<String> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  List<String> requestsTo(String pathPart) {
    return requests().stream().filter(r -> r.contains(pathPart)).toList();
  }

  /** Rows sent to tabledata.insertAll, with their insertId. */
  List<JsonNode> insertedRows() {
    return List.copyOf(insertedRows);
  }

  Table table(String dataset, String table, ArrayNode fields) {
    Table t = new Table(fields);
    tables.put(key(PROJECT, dataset, table), t);
    return t;
  }

  Table table(String dataset, String table) {
    return tables.get(key(PROJECT, dataset, table));
  }

  /** The query, when run, has the rows of {@code dataset.table} as its result table. */
  void queryResult(String sql, String dataset, String table) {
    queryResults.put(sql, key(PROJECT, dataset, table));
  }

  /**
   * The next {@code times} requests whose "METHOD path?query" contains {@code pathPart} fail with
   * {@code status}.
   */
  void failNext(String pathPart, int status, int times) {
    failAfter(pathPart, 0, status, times);
  }

  /**
   * After {@code skip} requests whose path contains {@code pathPart}, fail the next {@code times}.
   */
  void failAfter(String pathPart, int skip, int status, int times) {
    faults.add(new Fault(pathPart, status, new int[] {skip}, new int[] {times}));
  }

  /**
   * Runs {@code action} when the {@code nth} request (1-based) whose path contains {@code pathPart}
   * arrives.
   */
  void onRequest(String pathPart, int nth, Runnable action) {
    hooks.add(new Hook(pathPart, new int[] {nth}, action));
  }

  /** datasets.get of {@code dataset} answers 404. */
  void missingDataset(String dataset) {
    missingDatasets.add(dataset);
  }

  /** tables.testIamPermissions of {@code table} grants nothing. */
  void readOnlyTable(String table) {
    readOnlyTables.add(table);
  }

  /**
   * tabledata.list answers at most {@code rows} rows whatever maxResults asks, as BigQuery does
   * when a page would exceed its size limit.
   */
  void answerAtMostRows(int rows) {
    rowsPerAnswer = rows;
  }

  /** The tables the query jobs of the time-travel reads made, in order. */
  List<Table> snapshotTables() {
    return tables.entrySet().stream()
        .filter(e -> e.getKey().contains("|_anon|") && e.getKey().contains("_snapshot"))
        .sorted(java.util.Map.Entry.comparingByKey())
        .map(java.util.Map.Entry::getValue)
        .toList();
  }

  /** All tables, for the Storage Read API fake that serves them. */
  Table tableByKey(String project, String dataset, String table) {
    return tables.get(key(project, dataset, table));
  }

  static ArrayNode fields(String... nameTypeModes) {
    ArrayNode fields = NODES.arrayNode();
    for (String spec : nameTypeModes) {
      String[] parts = spec.split(" ");
      ObjectNode field = fields.addObject().put("name", parts[0]).put("type", parts[1]);
      field.put("mode", parts.length > 2 ? parts[2] : "NULLABLE");
    }
    return fields;
  }

  static ObjectNode field(String name, String type, String mode, ArrayNode subFields) {
    ObjectNode field = NODES.objectNode().put("name", name).put("type", type).put("mode", mode);
    if (subFields != null) {
      field.set("fields", subFields);
    }
    return field;
  }

  /**
   * A row in tabledata.list form from cells: a String (the API's text), null, a List (a repeated
   * field's values) or a {@link #record} (a STRUCT).
   */
  static JsonNode row(Object... cells) {
    ObjectNode row = NODES.objectNode();
    ArrayNode f = row.putArray("f");
    for (Object cell : cells) {
      f.addObject().set("v", value(cell));
    }
    return row;
  }

  static JsonNode record(Object... cells) {
    return row(cells);
  }

  private static JsonNode value(Object cell) {
    if (cell == null) {
      return NODES.nullNode();
    }
    if (cell instanceof JsonNode node) {
      return node;
    }
    if (cell instanceof List<?> list) {
      ArrayNode array = NODES.arrayNode();
      for (Object element : list) {
        array.addObject().set("v", value(element));
      }
      return array;
    }
    return NODES.textNode(cell.toString());
  }

  private MockResponse handle(RecordedRequest request) throws IOException {
    HttpUrl url = request.getRequestUrl();
    String path = url.encodedPath();
    String line =
        request.getMethod()
            + " "
            + path
            + (url.encodedQuery() == null ? "" : "?" + url.encodedQuery());
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
    String method = request.getMethod();
    Matcher m;
    if ((m = DATASET.matcher(path)).matches()) {
      if (missingDatasets.contains(m.group(2))) {
        return error(404, "Not found: Dataset " + m.group(1) + ":" + m.group(2));
      }
      ObjectNode dataset = NODES.objectNode().put("kind", "bigquery#dataset");
      dataset.put("id", m.group(1) + ":" + m.group(2));
      dataset
          .putObject("datasetReference")
          .put("projectId", m.group(1))
          .put("datasetId", m.group(2));
      return ok(dataset);
    }
    if ((m = TEST_PERMISSIONS.matcher(path)).matches()) {
      ObjectNode answer = NODES.objectNode();
      if (!readOnlyTables.contains(m.group(3))) {
        answer.set("permissions", body(request).path("permissions"));
      }
      return ok(answer);
    }
    if ((m = TABLE.matcher(path)).matches()) {
      Table table = tables.get(key(m.group(1), m.group(2), m.group(3)));
      if (table == null) {
        return error(404, "Not found: Table " + m.group(1) + ":" + m.group(2) + "." + m.group(3));
      }
      if ("/data".equals(m.group(4))) {
        return ok(tableData(table, url));
      }
      if ("/insertAll".equals(m.group(4))) {
        JsonNode body = body(request);
        body.path("rows").forEach(insertedRows::add);
        return ok(NODES.objectNode().put("kind", "bigquery#tableDataInsertAllResponse"));
      }
      return ok(tableResource(m.group(1), m.group(2), m.group(3), table));
    }
    if ((m = TABLES.matcher(path)).matches() && "POST".equals(method)) {
      JsonNode body = body(request);
      JsonNode reference = body.path("tableReference");
      Table table = new Table((ArrayNode) body.path("schema").path("fields"));
      tables.put(key(m.group(1), m.group(2), reference.path("tableId").asText()), table);
      return ok(tableResource(m.group(1), m.group(2), reference.path("tableId").asText(), table));
    }
    if ((m = JOBS.matcher(path)).matches() && "POST".equals(method)) {
      return insertJob(m.group(1), (ObjectNode) body(request));
    }
    if ((m = JOB.matcher(path)).matches()) {
      ObjectNode job = jobs.get(m.group(3));
      if (job == null) {
        return error(404, "Not found: Job " + m.group(3));
      }
      if ("queries".equals(m.group(2))) {
        ObjectNode results = NODES.objectNode().put("kind", "bigquery#getQueryResultsResponse");
        results.set("jobReference", job.get("jobReference"));
        results.put("jobComplete", true);
        return ok(results);
      }
      return ok(job);
    }
    return error(404, "no such API in FakeBigQuery: " + method + " " + path);
  }

  private static final Pattern SNAPSHOT_QUERY =
      Pattern.compile(
          "SELECT \\* FROM `([^.`]+)\\.([^.`]+)\\.([^.`]+)`"
              + "(?: FOR SYSTEM_TIME AS OF TIMESTAMP_MILLIS\\((\\d+)\\))?(?: WHERE (.+))?");

  private MockResponse insertJob(String project, ObjectNode body) {
    ObjectNode configuration = (ObjectNode) body.path("configuration");
    String sql = configuration.path("query").path("query").asText();
    ObjectNode job = NODES.objectNode().put("kind", "bigquery#job");
    ObjectNode reference = body.path("jobReference").deepCopy();
    if (!reference.has("jobId")) {
      reference.put("jobId", "dry_run");
    }
    reference.put("projectId", project);
    job.set("jobReference", reference);
    job.put("id", project + ":" + reference.path("jobId").asText());
    ObjectNode statistics = job.putObject("statistics");
    statistics
        .put("creationTime", "1767000000000")
        .put("startTime", "1767000000000")
        .put("endTime", "1767000001000");
    ObjectNode queryStatistics = statistics.putObject("query");
    String jobId = reference.path("jobId").asText();
    if (!configuration.path("dryRun").asBoolean(false) && jobs.containsKey(jobId)) {
      return error(409, "Already Exists: Job " + project + ":" + jobId);
    }
    Matcher snapshot = SNAPSHOT_QUERY.matcher(sql);
    String resultKey = queryResults.get(sql);
    Table result;
    if (resultKey != null) {
      result = tables.get(resultKey);
    } else if (snapshot.matches()) {
      Table source = tables.get(key(snapshot.group(1), snapshot.group(2), snapshot.group(3)));
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
              ? List.copyOf(source.rows)
              : source.snapshotAt(Long.parseLong(snapshot.group(4)));
      result = new Table(source.fields);
      for (JsonNode row : rows) {
        if (snapshot.group(5) == null || matches(source.fields, row, snapshot.group(5))) {
          result.rows.add(row);
        }
      }
      if (configuration.path("dryRun").asBoolean(false)) {
        resultKey = null;
      } else {
        resultKey =
            key(PROJECT, "_anon", snapshot.group(3) + "_snapshot" + snapshots.incrementAndGet());
        tables.put(resultKey, result);
      }
    } else {
      return error(400, "Syntax error: unknown query in FakeBigQuery");
    }
    if (configuration.path("dryRun").asBoolean(false)) {
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

  /**
   * {@code field op number [AND ...]}: the row restrictions and WHERE conditions the tests use,
   * with BigQuery's meaning.
   */
  static boolean matches(ArrayNode fields, JsonNode row, String condition) {
    for (String part : condition.split("(?i) AND ")) {
      Matcher m = Pattern.compile("\\s*(\\w+)\\s*(>=|<=|=|<|>)\\s*(-?\\d+)\\s*").matcher(part);
      if (!m.matches()) {
        throw new IllegalArgumentException("FakeBigQuery cannot evaluate: " + part);
      }
      int index = -1;
      for (int i = 0; i < fields.size(); i++) {
        if (fields.get(i).path("name").asText().equals(m.group(1))) {
          index = i;
        }
      }
      JsonNode cell = row.path("f").path(index).path("v");
      if (cell.isNull() || cell.isMissingNode()) {
        return false;
      }
      int compared = Long.compare(Long.parseLong(cell.asText()), Long.parseLong(m.group(3)));
      boolean holds =
          switch (m.group(2)) {
            case ">=" -> compared >= 0;
            case "<=" -> compared <= 0;
            case ">" -> compared > 0;
            case "<" -> compared < 0;
            default -> compared == 0;
          };
      if (!holds) {
        return false;
      }
    }
    return true;
  }

  /** The request's JSON body; the client gzips what it sends. */
  private static JsonNode body(RecordedRequest request) throws IOException {
    byte[] bytes = request.getBody().readByteArray();
    if ("gzip".equalsIgnoreCase(request.getHeader("Content-Encoding"))) {
      try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(bytes))) {
        bytes = in.readAllBytes();
      }
    }
    return JSON.readTree(bytes);
  }

  private ObjectNode tableData(Table table, HttpUrl url) {
    int max =
        Math.min(
            rowsPerAnswer,
            Integer.parseInt(firstNonNull(url.queryParameter("maxResults"), "100000")));
    String token = url.queryParameter("pageToken");
    int start =
        token != null
            ? Integer.parseInt(token.substring("at-".length()))
            : Integer.parseInt(firstNonNull(url.queryParameter("startIndex"), "0"));
    int end = Math.min(table.rows.size(), start + max);
    ObjectNode page = NODES.objectNode().put("kind", "bigquery#tableDataList");
    page.put("totalRows", Integer.toString(table.rows.size()));
    if (end < table.rows.size()) {
      page.put("pageToken", "at-" + end);
    }
    ArrayNode rows = page.putArray("rows");
    for (int i = start; i < end; i++) {
      rows.add(table.rows.get(i));
    }
    return page;
  }

  private static ObjectNode tableResource(
      String project, String dataset, String tableId, Table table) {
    ObjectNode resource = NODES.objectNode().put("kind", "bigquery#table");
    resource.put("id", project + ":" + dataset + "." + tableId);
    resource
        .putObject("tableReference")
        .put("projectId", project)
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

  private static MockResponse ok(JsonNode body) {
    return new MockResponse()
        .setHeader("Content-Type", "application/json")
        .setBody(body.toString());
  }

  private static MockResponse error(int status, String message) {
    ObjectNode body = NODES.objectNode();
    ObjectNode error = body.putObject("error").put("code", status).put("message", message);
    error
        .putArray("errors")
        .addObject()
        .put("message", message)
        .put("reason", status >= 500 ? "backendError" : "invalid");
    return new MockResponse()
        .setResponseCode(status)
        .setHeader("Content-Type", "application/json")
        .setBody(body.toString());
  }

  private static String key(String project, String dataset, String table) {
    return project + "|" + dataset + "|" + table;
  }

  private static String firstNonNull(String a, String b) {
    return a != null ? a : b;
  }

  @Override
  public void close() throws IOException {
    server.shutdown();
  }
}
