package dev.pubsubclickhouse.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.NoCredentials;
import com.google.cloud.bigquery.BigQueryOptions;
import com.google.cloud.bigquery.Field;
import com.google.cloud.bigquery.Schema;
import com.google.cloud.bigquery.StandardSQLTypeName;
import com.google.cloud.bigquery.TableId;
import dev.pubsubclickhouse.backfill.source.BigQueryRetry;
import dev.pubsubclickhouse.backfill.source.ReadStreamUnit;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import dev.pubsubclickhouse.backfill.source.RestPageReader;
import dev.pubsubclickhouse.backfill.source.RowRange;
import dev.pubsubclickhouse.backfill.source.StorageReads;
import dev.pubsubclickhouse.backfill.source.TableRange;
import dev.pubsubclickhouse.testing.bigquery.LocalBigQuery;
import dev.pubsubclickhouse.testing.bigquery.LogEvents;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The backfill's two readers side by side on the same rows, served by {@link LocalBigQuery} (seed
 * rows, pre-encoded once as tabledata.list pages and as Avro blocks, so the numbers measure the
 * job, not the server):
 *
 * <ol>
 *   <li>read only: one task's read units (REST: one tabledata.list range; Storage Read API: two
 *       streams) read and parsed into the encoder's rows, rows/s;
 *   <li>the whole job, {@code java -jar backfill-job.jar} per task into ClickHouse, each reader
 *       with 1 and 2 tasks: rows/s per task (the job's own summary) and for the execution.
 * </ol>
 *
 * {@code java -cp benchmarks.jar dev.pubsubclickhouse.benchmarks.BackfillReadBenchmark [ROWS]
 * [CLICKHOUSE_URL] [BACKFILL_JAR]} (defaults: 2000000, http://127.0.0.1:18123,
 * backfill-job/target/backfill-job.jar). Writes into {@code bench.backfill_read}, truncated first.
 */
public final class BackfillReadBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PAGE_ROWS = 50_000;

  private BackfillReadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    String clickHouse = args.length > 1 ? args[1] : "http://127.0.0.1:18123";
    String jar = args.length > 2 ? args[2] : "backfill-job/target/backfill-job.jar";
    try (LocalBigQuery bigQuery = LocalBigQuery.serve("bench", 0, 0)) {
      bigQuery.put("bench:ds.seed", LogEvents.table(rows, true));
      System.out.println("rows: " + rows + ", page rows: " + PAGE_ROWS);
      // Twice each, the second kept: the first warms the JIT and the server's caches.
      for (int round = 0; round < 2; round++) {
        double rest = readRest(bigQuery, rows);
        double storage = readStorage(bigQuery, rows);
        if (round == 1) {
          System.out.printf(
              "read only, 1 task: rest %,.0f rows/s, storage %,.0f rows/s%n", rest, storage);
        }
      }
      sql(clickHouse, "CREATE DATABASE IF NOT EXISTS bench");
      sql(
          clickHouse,
          "CREATE TABLE IF NOT EXISTS bench.backfill_read (event_time DateTime, service String,"
              + " level String, message String) ENGINE = MergeTree ORDER BY event_time");
      for (String reader : List.of("rest", "storage")) {
        for (int tasks : List.of(1, 2)) {
          sql(clickHouse, "TRUNCATE TABLE bench.backfill_read");
          job(bigQuery, clickHouse, jar, reader, tasks, rows);
        }
      }
    }
  }

  private static double readRest(LocalBigQuery bigQuery, long rows) throws Exception {
    BigQueryOptions options =
        BigQueryOptions.newBuilder()
            .setProjectId("bench")
            .setHost(bigQuery.endpoint())
            .setCredentials(NoCredentials.getInstance())
            .build();
    Schema schema =
        Schema.of(
            Field.of("event_time", StandardSQLTypeName.DATETIME),
            Field.of("service", StandardSQLTypeName.STRING),
            Field.of("level", StandardSQLTypeName.STRING),
            Field.of("message", StandardSQLTypeName.STRING));
    ReadUnit unit =
        new TableRange(
            new RestPageReader(options, schema, BigQueryRetry.withAttempts(3)),
            TableId.of("bench", "ds", "seed"),
            new RowRange(0, rows),
            PAGE_ROWS,
            "bench");
    return time(List.of(unit), rows);
  }

  private static double readStorage(LocalBigQuery bigQuery, long rows) throws Exception {
    BigQueryRetry retry = BigQueryRetry.withAttempts(3);
    try (StorageReads storage =
        StorageReads.open(Optional.of(bigQuery.storage().endpoint()), false, retry)) {
      StorageReads.Session session =
          storage.create(
              "bench", TableId.of("bench", "ds", "seed"), Optional.empty(), Optional.empty(), 2);
      List<ReadUnit> units = new ArrayList<>();
      for (String stream : session.streams()) {
        units.add(
            new ReadStreamUnit(
                storage.client(), stream, session.avroSchema(), PAGE_ROWS, retry, stream));
      }
      return time(units, rows);
    }
  }

  /** Reads every unit on its own thread, as a task does; rows per second. */
  private static double time(List<ReadUnit> units, long expected) throws Exception {
    AtomicLong read = new AtomicLong();
    ExecutorService threads = Executors.newFixedThreadPool(units.size());
    long start = System.nanoTime();
    List<Future<?>> running = new ArrayList<>();
    for (ReadUnit unit : units) {
      running.add(
          threads.submit(
              () -> {
                unit.read(unit.range(), page -> read.addAndGet(page.rows().size()));
                return null;
              }));
    }
    for (Future<?> future : running) {
      future.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    threads.shutdown();
    if (read.get() != expected) {
      throw new IllegalStateException("read " + read.get() + " rows of " + expected);
    }
    return expected / seconds;
  }

  private static void job(
      LocalBigQuery bigQuery, String clickHouse, String jar, String reader, int tasks, long rows)
      throws Exception {
    List<Process> processes = new ArrayList<>();
    // A checkpoint table of its own: the table is unchanged between runs, and a run that found the
    // last one's checkpoints would rightly skip every page.
    String run = reader + "_" + tasks + "_" + System.currentTimeMillis();
    long start = System.nanoTime();
    for (int task = 0; task < tasks; task++) {
      ProcessBuilder builder =
          new ProcessBuilder(
                  "java",
                  "-XX:+UseParallelGC",
                  "-jar",
                  jar,
                  "--inputTableSpec=bench:ds.seed",
                  "--clickHouseTable=backfill_read",
                  "--pageRows=" + PAGE_ROWS,
                  "--pageReader=" + reader,
                  "--outputDeadletterTable=none",
                  "--checkpointTable=bench_checkpoints_" + run,
                  "--progressIntervalSeconds=3600")
              .redirectErrorStream(true);
      var env = builder.environment();
      env.put("CLICKHOUSE_URL", clickHouse);
      env.put("CLICKHOUSE_DATABASE", "bench");
      env.put("BIGQUERY_ENDPOINT", bigQuery.endpoint());
      env.put("BIGQUERY_STORAGE_ENDPOINT", bigQuery.storage().endpoint());
      env.put("CLOUD_RUN_EXECUTION", "bench-" + run);
      env.put("CLOUD_RUN_TASK_INDEX", Integer.toString(task));
      env.put("CLOUD_RUN_TASK_COUNT", Integer.toString(tasks));
      processes.add(builder.start());
    }
    List<Long> perTask = new ArrayList<>();
    for (Process process : processes) {
      String last = null;
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          last = line;
        }
      }
      if (process.waitFor() != 0 || last == null) {
        throw new IllegalStateException("a " + reader + " task failed: " + last);
      }
      JsonNode summary = JSON.readTree(last);
      perTask.add(summary.path("rowsPerSecond").asLong());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long count = Long.parseLong(sql(clickHouse, "SELECT count() FROM bench.backfill_read").trim());
    if (count != rows) {
      throw new IllegalStateException(reader + ": " + count + " rows in ClickHouse of " + rows);
    }
    System.out.printf(
        "job, %s, %d task(s): rows/s per task %s, execution %,.0f rows/s (%.1f s with JVM starts)%n",
        reader, tasks, perTask, rows / seconds, seconds);
  }

  private static String sql(String clickHouse, String statement) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(clickHouse + "/"))
                    .POST(HttpRequest.BodyPublishers.ofString(statement))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(statement + ": " + response.body());
    }
    return response.body();
  }
}
