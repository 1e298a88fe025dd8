package dev.pubsubclickhouse.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

/**
 * A locally served BigQuery page source for the backfill benchmark: answers tables.get for {@code
 * bench:ds.seed}, the job's snapshot query (jobs.insert and jobs.get: its result is the seed table
 * itself, which never changes), and serves one pre-built tabledata.list page of seed rows for every
 * read, so the numbers measure the job (reading, parsing, encoding, inserting) and ClickHouse, not
 * this server. Runs in its own process; the backfill tasks reach it through {@code
 * BIGQUERY_ENDPOINT}.
 *
 * <p>{@code java -cp benchmarks.jar dev.pubsubclickhouse.benchmarks.BigQueryPageServer PORT
 * TOTAL_ROWS PAGE_ROWS} (PORT 0: any free port; prints {@code PAGESERVER <port>}).
 */
public final class BigQueryPageServer {
  private BigQueryPageServer() {}

  /** The seed row as BigQuery's tabledata.list returns it (DATETIME, then three STRINGs). */
  static final String SEED_CELLS =
      "{\"f\":[{\"v\":\"2025-12-30T12:00:00\"},{\"v\":\"api\"},{\"v\":\"INFO\"},"
          + "{\"v\":\"PRE-DATAFLOW TEST\"}]}";

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    long totalRows = Long.parseLong(args[1]);
    int pageRows = Integer.parseInt(args[2]);
    byte[] page = page(pageRows, totalRows);
    byte[] table =
        ("{\"kind\":\"bigquery#table\",\"id\":\"bench:ds.seed\",\"tableReference\":"
                + "{\"projectId\":\"bench\",\"datasetId\":\"ds\",\"tableId\":\"seed\"},"
                + "\"schema\":{\"fields\":["
                + "{\"name\":\"event_time\",\"type\":\"DATETIME\",\"mode\":\"NULLABLE\"},"
                + "{\"name\":\"service\",\"type\":\"STRING\",\"mode\":\"NULLABLE\"},"
                + "{\"name\":\"level\",\"type\":\"STRING\",\"mode\":\"NULLABLE\"},"
                + "{\"name\":\"message\",\"type\":\"STRING\",\"mode\":\"NULLABLE\"}]},"
                + "\"numRows\":\""
                + totalRows
                + "\",\"type\":\"TABLE\",\"lastModifiedTime\":\"1767000000000\"}")
            .getBytes(StandardCharsets.UTF_8);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          byte[] body =
              path.endsWith("/data") ? page : path.contains("/jobs") ? job(exchange) : table;
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    System.out.println("PAGESERVER " + server.getAddress().getPort());
    System.out.flush();
  }

  private static final Map<String, byte[]> JOBS = new ConcurrentHashMap<>();

  /**
   * jobs.insert answers the job done, its configuration (labels included) as sent and the seed
   * table as its result; jobs.get answers the same job again.
   */
  private static byte[] job(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    if (!"POST".equals(exchange.getRequestMethod())) {
      byte[] known = JOBS.get(path.substring(path.lastIndexOf('/') + 1));
      return known != null ? known : "{}".getBytes(StandardCharsets.UTF_8);
    }
    InputStream in = exchange.getRequestBody();
    if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
      in = new GZIPInputStream(in);
    }
    ObjectMapper json = new ObjectMapper();
    ObjectNode request = (ObjectNode) json.readTree(in.readAllBytes());
    ObjectNode job = json.createObjectNode().put("kind", "bigquery#job");
    job.set("jobReference", request.path("jobReference"));
    job.putObject("status").put("state", "DONE");
    ObjectNode configuration = (ObjectNode) request.path("configuration");
    ((ObjectNode) configuration.path("query"))
        .putObject("destinationTable")
        .put("projectId", "bench")
        .put("datasetId", "ds")
        .put("tableId", "seed");
    job.set("configuration", configuration);
    byte[] body = json.writeValueAsBytes(job);
    JOBS.putIfAbsent(request.path("jobReference").path("jobId").asText(), body);
    return body;
  }

  private static byte[] page(int rows, long totalRows) {
    StringBuilder page =
        new StringBuilder(
            "{\"kind\":\"bigquery#tableDataList\",\"totalRows\":\""
                + totalRows
                + "\",\"pageToken\":\"next\",\"rows\":[");
    for (int i = 0; i < rows; i++) {
      if (i > 0) {
        page.append(',');
      }
      page.append(SEED_CELLS);
    }
    return page.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }
}
