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
  private static final Pattern JOBS = Pattern.compile("/bigquery/v2/projects/([^/]+)/jobs");
  private static final Pattern JOB =
      Pattern.compile("/bigquery/v2/projects/([^/]+)/(jobs|queries)/([^/]+)");

  /** A table: its schema fields (REST form), rows in f/v form, and its last modification. */
  static final class Table {
    final ArrayNode fields;
    final List<JsonNode> rows = new CopyOnWriteArrayList<>();
    long lastModified = 1_767_000_000_000L;
    String type = "TABLE";

    Table(ArrayNode fields) {
      this.fields = fields;
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
   * The next {@code times} requests whose path contains {@code pathPart} fail with {@code status}.
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
    requests.add(
        request.getMethod()
            + " "
            + path
            + (url.encodedQuery() == null ? "" : "?" + url.encodedQuery()));
    for (Hook hook : hooks) {
      synchronized (hook) {
        if (path.contains(hook.pathPart()) && --hook.remaining()[0] == 0) {
          hook.action().run();
        }
      }
    }
    for (Fault fault : faults) {
      synchronized (fault) {
        if (path.contains(fault.pathPart())) {
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

  private MockResponse insertJob(String project, ObjectNode body) {
    ObjectNode configuration = (ObjectNode) body.path("configuration");
    String sql = configuration.path("query").path("query").asText();
    String resultKey = queryResults.get(sql);
    if (resultKey == null) {
      return error(400, "Syntax error: unknown query in FakeBigQuery");
    }
    Table result = tables.get(resultKey);
    ObjectNode job = NODES.objectNode().put("kind", "bigquery#job");
    ObjectNode reference = body.path("jobReference").deepCopy();
    if (!reference.has("jobId")) {
      reference.put("jobId", "dry_run");
    }
    reference.put("projectId", project);
    job.set("jobReference", reference);
    job.put("id", project + ":" + reference.path("jobId").asText());
    job.putObject("status").put("state", "DONE");
    ObjectNode statistics = job.putObject("statistics");
    statistics
        .put("creationTime", "1767000000000")
        .put("startTime", "1767000000000")
        .put("endTime", "1767000001000");
    ObjectNode queryStatistics = statistics.putObject("query");
    if (configuration.path("dryRun").asBoolean(false)) {
      queryStatistics.putObject("schema").set("fields", result.fields);
      job.set("configuration", configuration);
      return ok(job);
    }
    String jobId = reference.path("jobId").asText();
    if (jobs.containsKey(jobId)) {
      return error(409, "Already Exists: Job " + project + ":" + jobId);
    }
    String[] parts = resultKey.split("\\|");
    ObjectNode destination =
        ((ObjectNode) configuration.path("query")).putObject("destinationTable");
    destination.put("projectId", parts[0]).put("datasetId", parts[1]).put("tableId", parts[2]);
    job.set("configuration", configuration);
    jobs.put(jobId, job);
    return ok(job);
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
    int max = Integer.parseInt(firstNonNull(url.queryParameter("maxResults"), "100000"));
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
    resource.put("numRows", Integer.toString(table.rows.size()));
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
