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
import dev.pubsubclickhouse.backfill.source.TableSpec;
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
 * when missing. Rows carry their identity as insert id, so BigQuery drops the copies a retried page
 * sends again.
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

  private BigQueryDeadLetters(BigQuery bigQuery, TableId table) {
    this.bigQuery = bigQuery;
    this.table = table;
  }

  /**
   * Checks that the table exists, creating it when missing.
   *
   * @throws IllegalStateException naming the table and the problem
   */
  public static BigQueryDeadLetters open(BigQuery bigQuery, TableId table, boolean create) {
    try {
      Table existing = bigQuery.getTable(table);
      if (existing == null) {
        if (!create) {
          throw new IllegalStateException(
              "dead-letter table " + TableSpec.format(table) + " does not exist");
        }
        bigQuery.create(TableInfo.of(table, StandardTableDefinition.of(SCHEMA)));
      }
    } catch (BigQueryException e) {
      if (e.getCode() != 409) {
        throw new IllegalStateException(
            "cannot use dead-letter table " + TableSpec.format(table) + ": " + firstLine(e), e);
      }
      // Another task created it at the same moment.
    }
    return new BigQueryDeadLetters(bigQuery, table);
  }

  @Override
  public void write(List<DeadLetter> deadLetters) {
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
      InsertAllResponse response;
      try {
        response = bigQuery.insertAll(request.build());
      } catch (BigQueryException e) {
        throw new IllegalStateException(
            "cannot write to dead-letter table " + TableSpec.format(table) + ": " + firstLine(e),
            e);
      }
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

  private static String firstLine(BigQueryException e) {
    String message = e.getMessage() == null ? "HTTP " + e.getCode() : e.getMessage();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
