package dev.pubsubclickhouse.backfill.write;

import com.google.cloud.bigquery.BigQuery;
import com.google.cloud.bigquery.BigQueryError;
import com.google.cloud.bigquery.BigQueryException;
import com.google.cloud.bigquery.Field;
import com.google.cloud.bigquery.InsertAllRequest;
import com.google.cloud.bigquery.InsertAllResponse;
import com.google.cloud.bigquery.Schema;
import com.google.cloud.bigquery.StandardSQLTypeName;
import com.google.cloud.bigquery.StandardTableDefinition;
import com.google.cloud.bigquery.Table;
import com.google.cloud.bigquery.TableId;
import com.google.cloud.bigquery.TableInfo;
import dev.pubsubclickhouse.backfill.source.BigQueryRetry;
import dev.pubsubclickhouse.backfill.source.SourceException;
import dev.pubsubclickhouse.backfill.source.TableSpec;
import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Dead letters into a BigQuery table (outputDeadletterTable) with the Dataflow templates'
 * dead-letter columns: timestamp, payloadString, payloadBytes, errorMessage, stacktrace. Created
 * when missing. Every call goes through the job's {@link BigQueryRetry} policy, as every other call
 * to BigQuery: a 503 or a reset connection is retried with backoff. Rows carry their identity as
 * insert id, so BigQuery drops the copies a retried request or a retried page sends again.
 */
public final class BigQueryDeadLetters implements DeadLetterSink {
  /** The templates' dead-letter schema, less the Pub/Sub attributes a table row does not have. */
  public static final Schema SCHEMA =
      Schema.of(
          Field.newBuilder("timestamp", StandardSQLTypeName.TIMESTAMP)
              .setMode(Field.Mode.REQUIRED)
              .build(),
          Field.newBuilder("payloadString", StandardSQLTypeName.STRING)
              .setMode(Field.Mode.REQUIRED)
              .build(),
          Field.newBuilder("payloadBytes", StandardSQLTypeName.BYTES)
              .setMode(Field.Mode.REQUIRED)
              .build(),
          Field.of("errorMessage", StandardSQLTypeName.STRING),
          Field.of("stacktrace", StandardSQLTypeName.STRING));

  private static final int ROWS_PER_REQUEST = 500;

  private final BigQuery bigQuery;
  private final TableId table;
  private final BigQueryRetry retry;

  private BigQueryDeadLetters(BigQuery bigQuery, TableId table, BigQueryRetry retry) {
    this.bigQuery = bigQuery;
    this.table = table;
    this.retry = retry;
  }

  /**
   * Checks that the table exists, creating it when missing.
   *
   * @throws IllegalStateException naming the table and the problem
   */
  public static BigQueryDeadLetters open(
      BigQuery bigQuery, TableId table, boolean create, BigQueryRetry retry)
      throws InterruptedException {
    String name = TableSpec.format(table);
    try {
      Table existing = retry.call("tables.get", name, () -> bigQuery.getTable(table));
      if (existing == null) {
        if (!create) {
          throw new IllegalStateException("dead-letter table " + name + " does not exist");
        }
        retry.call(
            "tables.insert",
            name,
            () -> {
              try {
                return bigQuery.create(TableInfo.of(table, StandardTableDefinition.of(SCHEMA)));
              } catch (BigQueryException e) {
                if (e.getCode() != 409) {
                  throw e;
                }
                // Another task created it at the same moment, or our own earlier attempt did.
                return null;
              }
            });
      }
    } catch (SourceException e) {
      throw new IllegalStateException(
          "cannot use dead-letter table " + name + ": " + e.getMessage(), e);
    }
    return new BigQueryDeadLetters(bigQuery, table, retry);
  }

  /**
   * A backfill waits for its dead letters however long they take ({@code always}: its rows are
   * never given up on by their source).
   *
   * @throws SourceException naming the request when BigQuery fails for good (after the retries)
   * @throws IllegalStateException when BigQuery refuses rows
   */
  @Override
  public void write(List<DeadLetter> deadLetters, WaitedFor always) throws InterruptedException {
    for (int from = 0; from < deadLetters.size(); from += ROWS_PER_REQUEST) {
      InsertAllRequest.Builder request = InsertAllRequest.newBuilder(table);
      for (DeadLetter deadLetter :
          deadLetters.subList(from, Math.min(deadLetters.size(), from + ROWS_PER_REQUEST))) {
        Map<String, Object> content = new LinkedHashMap<>();
        content.put("timestamp", deadLetter.failedAt().toString());
        content.put("payloadString", new String(deadLetter.payload(), StandardCharsets.UTF_8));
        content.put("payloadBytes", Base64.getEncoder().encodeToString(deadLetter.data()));
        content.put("errorMessage", deadLetter.reason());
        content.put("stacktrace", origin(deadLetter));
        request.addRow(deadLetter.identity(), content);
      }
      InsertAllRequest built = request.build();
      InsertAllResponse response =
          retry.call(
              "tabledata.insertAll", TableSpec.format(table), () -> bigQuery.insertAll(built));
      if (response.hasErrors()) {
        Map.Entry<Long, List<BigQueryError>> first =
            response.getInsertErrors().entrySet().iterator().next();
        throw new IllegalStateException(
            "dead-letter table "
                + TableSpec.format(table)
                + " refused "
                + response.getInsertErrors().size()
                + " rows, first: "
                + first.getValue().get(0).getMessage());
      }
    }
  }

  @Override
  public String name() {
    return "BigQuery table " + TableSpec.format(table);
  }

  private static String origin(DeadLetter deadLetter) {
    StringBuilder origin = new StringBuilder();
    deadLetter
        .origin()
        .forEach(
            (key, value) ->
                origin.append(origin.isEmpty() ? "" : " ").append(key).append('=').append(value));
    return origin.toString();
  }
}
