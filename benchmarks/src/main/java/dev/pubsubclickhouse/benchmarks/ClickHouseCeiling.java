package dev.pubsubclickhouse.benchmarks;

import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * The ClickHouse ceiling: the same seed rows the push service writes, sent as ONE INSERT over the
 * HTTP interface, once as RowBinaryWithDefaults (encoded by our encoder beforehand, so the time is
 * ClickHouse's) and once as JSONEachRow. Prints one line per format: {@code CEILING {json}}.
 *
 * <p>{@code java -cp benchmarks.jar dev.pubsubclickhouse.benchmarks.ClickHouseCeiling URL db.table
 * ROWS[,ROWS...] REPEATS}; JSONEachRow is measured for the largest count only.
 */
public final class ClickHouseCeiling {
  private ClickHouseCeiling() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String table = args[1];
    int repeats = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    int largest = 0;
    for (String count : args[2].split(",")) {
      largest = Math.max(largest, Integer.parseInt(count));
    }
    for (String count : args[2].split(",")) {
      int rows = Integer.parseInt(count);
      measure(client, url, table, rows, "RowBinaryWithDefaults", repeats);
      if (rows == largest) {
        measure(client, url, table, rows, "JSONEachRow", repeats);
      }
    }
    query(client, url, "TRUNCATE TABLE " + table, null);
  }

  private static void measure(
      HttpClient client, String url, String table, int rows, String format, int repeats)
      throws Exception {
    byte[] seed = EncoderBenchmark.SEED_ROW.getBytes(StandardCharsets.UTF_8);
    RowEncoder encoder =
        RowEncoder.forTable(
            new TableSchema(new TableName("b", "seed"), EncoderBenchmark.SEED_COLUMNS));
    byte[] body;
    if (format.equals("JSONEachRow")) {
      ByteArrayOutputStream json = new ByteArrayOutputStream(rows * (seed.length + 1));
      for (int i = 0; i < rows; i++) {
        json.write(seed);
        json.write('\n');
      }
      body = json.toByteArray();
    } else {
      RowBinaryOutput rowBinary = new RowBinaryOutput(rows * 48);
      var row = JsonPayloads.rows(seed).get(0);
      for (int i = 0; i < rows; i++) {
        encoder.encode(row, rowBinary);
      }
      body = rowBinary.toByteArray();
    }
    String columns = String.join(", ", encoder.columnNames());
    double best = Double.MAX_VALUE;
    double sum = 0;
    for (int r = 0; r < repeats; r++) {
      query(client, url, "TRUNCATE TABLE " + table, null);
      long start = System.nanoTime();
      query(client, url, "INSERT INTO " + table + " (" + columns + ") FORMAT " + format, body);
      double seconds = (System.nanoTime() - start) / 1e9;
      best = Math.min(best, seconds);
      sum += seconds;
    }
    String count = query(client, url, "SELECT count() FROM " + table, null).trim();
    System.out.printf(
        "CEILING {\"format\":\"%s\",\"rows\":%d,\"bytes\":%d,\"best_s\":%.4f,\"mean_s\":%.4f,"
            + "\"rows_per_s\":%.0f,\"count_after\":%s}%n",
        format, rows, body.length, best, sum / repeats, rows / best, count);
  }

  private static String query(HttpClient client, String url, String sql, byte[] body)
      throws Exception {
    HttpRequest request =
        body == null
            ? HttpRequest.newBuilder(URI.create(url + "/"))
                .POST(HttpRequest.BodyPublishers.ofString(sql))
                .build()
            : HttpRequest.newBuilder(
                    URI.create(
                        url
                            + "/?async_insert=0&query="
                            + URLEncoder.encode(sql, StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(sql + ": " + response.body());
    }
    return response.body();
  }
}
