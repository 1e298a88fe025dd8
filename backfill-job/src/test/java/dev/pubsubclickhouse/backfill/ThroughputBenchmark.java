package dev.pubsubclickhouse.backfill;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * Rows per second of one task, BigQuery pages to ClickHouse: a local HTTP server answers tables.get
 * and serves the same pre-built tabledata.list page of seed rows for every read, so the numbers
 * measure the job (reading, parsing, encoding, inserting) and ClickHouse, not the server.
 *
 * <pre>
 * mvn -q -pl backfill-job -am test-compile -DskipTests
 * java -cp backfill-job/target/test-classes:backfill-job/target/classes:$(cat cp.txt) \
 *   dev.pubsubclickhouse.backfill.ThroughputBenchmark [rows] [pageRows] [stream|client]
 * </pre>
 *
 * Uses the ClickHouse at CLICKHOUSE_URL (default http://127.0.0.1:18123, user default) and a
 * database {@code backfill_benchmark} it drops and creates.
 */
public final class ThroughputBenchmark {
  private ThroughputBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 3_000_000;
    int pageRows = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
    String reader = args.length > 2 ? args[2] : "stream";
    String clickHouse = System.getenv().getOrDefault("CLICKHOUSE_URL", "http://127.0.0.1:18123");

    byte[] page = page(pageRows, rows);
    byte[] table =
        ("{\"kind\":\"bigquery#table\",\"id\":\"bench:ds.seed\",\"tableReference\":{\"projectId\":\"bench\","
                + "\"datasetId\":\"ds\",\"tableId\":\"seed\"},\"schema\":{\"fields\":["
                + "{\"name\":\"event_time\",\"type\":\"DATETIME\",\"mode\":\"NULLABLE\"},"
                + "{\"name\":\"service\",\"type\":\"STRING\",\"mode\":\"NULLABLE\"},"
                + "{\"name\":\"level\",\"type\":\"STRING\",\"mode\":\"NULLABLE\"},"
                + "{\"name\":\"message\",\"type\":\"STRING\",\"mode\":\"NULLABLE\"}]},"
                + "\"numRows\":\""
                + rows
                + "\",\"type\":\"TABLE\",\"lastModifiedTime\":\""
                + System.currentTimeMillis()
                + "\"}")
            .getBytes(StandardCharsets.UTF_8);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext(
        "/",
        exchange -> {
          byte[] body = exchange.getRequestURI().getPath().endsWith("/data") ? page : table;
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();

    clickHouse(clickHouse, "DROP DATABASE IF EXISTS backfill_benchmark");
    clickHouse(clickHouse, "CREATE DATABASE backfill_benchmark");
    clickHouse(
        clickHouse,
        "CREATE TABLE backfill_benchmark.seed (event_time DateTime, service String, level String,"
            + " message String) ENGINE = MergeTree ORDER BY tuple()");

    Map<String, String> env = new HashMap<>();
    env.put("CLICKHOUSE_URL", clickHouse);
    env.put("CLICKHOUSE_DATABASE", "backfill_benchmark");
    env.put("BIGQUERY_ENDPOINT", "http://127.0.0.1:" + server.getAddress().getPort());
    long start = System.nanoTime();
    int exit =
        Main.run(
            env,
            new String[] {
              "--inputTableSpec=bench:ds.seed",
              "--clickHouseTable=seed",
              "--pageRows=" + pageRows,
              "--pageReader=" + reader,
              "--outputDeadletterTable=none",
              "--checkpointTable=none",
              "--progressIntervalSeconds=3600"
            },
            System.out,
            System.err,
            false);
    double seconds = (System.nanoTime() - start) / 1e9;
    server.stop(0);
    String count = clickHouse(clickHouse, "SELECT count() FROM backfill_benchmark.seed").trim();
    System.out.printf(
        "%nexit %d: %s rows in %.2f s = %,.0f rows/s (pageRows %d, reader %s)%n",
        exit, count, seconds, Long.parseLong(count) / seconds, pageRows, reader);
    System.exit(exit);
  }

  private static byte[] page(int rows, int totalRows) {
    StringBuilder page =
        new StringBuilder(
            "{\"kind\":\"bigquery#tableDataList\",\"totalRows\":\""
                + totalRows
                + "\",\"pageToken\":\"next\",\"rows\":[");
    for (int i = 0; i < rows; i++) {
      if (i > 0) {
        page.append(',');
      }
      page.append("{\"f\":[{\"v\":\"2025-12-30T12:00:00\"},{\"v\":\"api\"},{\"v\":\"INFO\"},")
          .append("{\"v\":\"GET /v1/items/")
          .append(i)
          .append(" 200 in 12 ms\"}]}");
    }
    return page.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String clickHouse(String url, String sql) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url + "/"))
                    .POST(HttpRequest.BodyPublishers.ofString(sql))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(sql + ": " + response.body());
    }
    return response.body();
  }
}
