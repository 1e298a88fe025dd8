package dev.pubsubclickhouse.backfill.source;

import com.google.cloud.bigquery.BigQuery;
import com.google.cloud.bigquery.BigQueryError;
import com.google.cloud.bigquery.BigQueryException;
import com.google.cloud.bigquery.EncryptionConfiguration;
import com.google.cloud.bigquery.Job;
import com.google.cloud.bigquery.JobId;
import com.google.cloud.bigquery.JobInfo;
import com.google.cloud.bigquery.JobStatistics.QueryStatistics;
import com.google.cloud.bigquery.QueryJobConfiguration;
import com.google.cloud.bigquery.Schema;
import com.google.cloud.bigquery.StandardTableDefinition;
import com.google.cloud.bigquery.Table;
import com.google.cloud.bigquery.TableDefinition;
import com.google.cloud.bigquery.TableId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Finds what to read: the input table as it is, or the result table of the query.
 *
 * <p>A query runs as a job whose id is derived from the query text, its options and the execution
 * id, so every task of one execution, and every retry of a task, finds the same job and reads the
 * same result table instead of running the query again. A new execution runs it again; BigQuery
 * answers an unchanged query from its cache with the same result table, which is what lets a re-run
 * resume.
 */
public final class SourceResolver {
  /** How to run a query. */
  public record QuerySpec(
      String sql,
      boolean legacySql,
      Optional<String> location,
      Optional<String> tempDataset,
      Optional<String> kmsKey) {}

  private final BigQuery bigQuery;
  private final String project;

  public SourceResolver(BigQuery bigQuery, String project) {
    this.bigQuery = bigQuery;
    this.project = project;
  }

  /**
   * The input table; a view or another table that tabledata.list cannot list is read through {@code
   * SELECT *}.
   *
   * @throws SourceException when it does not exist or cannot be read
   */
  public Source table(TableId tableId, String executionId) throws InterruptedException {
    Table table = getTable(tableId);
    TableDefinition definition = table.getDefinition();
    if (!(definition instanceof StandardTableDefinition standard)) {
      String sql =
          "SELECT * FROM `"
              + tableId.getProject()
              + "."
              + tableId.getDataset()
              + "."
              + tableId.getTable()
              + "`";
      return query(
          new QuerySpec(sql, false, Optional.empty(), Optional.empty(), Optional.empty()),
          executionId);
    }
    return new Source(
        TableSpec.format(tableId),
        tableId,
        standard.getSchema(),
        rows(standard.getNumRows()),
        "table:" + TableSpec.format(tableId) + "@" + table.getLastModifiedTime());
  }

  /** The table's schema and row count, without reading rows (dry run). */
  public Source describeTable(TableId tableId) {
    Table table = getTable(tableId);
    TableDefinition definition = table.getDefinition();
    long rows =
        definition instanceof StandardTableDefinition standard ? rows(standard.getNumRows()) : -1;
    return new Source(TableSpec.format(tableId), tableId, definition.getSchema(), rows, "");
  }

  /** The schema the query result will have, without running it (dry run). */
  public Schema schemaOf(QuerySpec query) {
    QueryJobConfiguration configuration =
        configuration(query, "dryrun").toBuilder().setDryRun(true).build();
    JobId jobId =
        JobId.newBuilder().setProject(project).setLocation(query.location().orElse(null)).build();
    try {
      Job job = bigQuery.create(JobInfo.newBuilder(configuration).setJobId(jobId).build());
      QueryStatistics statistics = job.getStatistics();
      if (statistics == null || statistics.getSchema() == null) {
        throw new SourceException("the query's dry run returned no schema");
      }
      return statistics.getSchema();
    } catch (BigQueryException e) {
      throw new SourceException("the query is not valid: " + message(e));
    }
  }

  /**
   * Runs the query (or finds this execution's run of it), waits, and returns its result table.
   *
   * @throws SourceException when the query fails
   */
  public Source query(QuerySpec query, String executionId) throws InterruptedException {
    String key =
        hash(query.sql(), query.legacySql(), query.location(), query.tempDataset(), query.kmsKey());
    JobId jobId =
        JobId.newBuilder()
            .setProject(project)
            .setJob("backfill_" + hash(key, executionId))
            .setLocation(query.location().orElse(null))
            .build();
    Job job;
    try {
      job = bigQuery.create(JobInfo.newBuilder(configuration(query, key)).setJobId(jobId).build());
    } catch (BigQueryException e) {
      if (e.getCode() != 409) {
        throw new SourceException("the query cannot run: " + message(e));
      }
      // Another task of this execution, or an earlier attempt of this task, started it.
      job = bigQuery.getJob(jobId);
      if (job == null) {
        throw new SourceException("query job " + jobId.getJob() + " exists but cannot be read");
      }
    }
    try {
      job = job.waitFor();
    } catch (BigQueryException e) {
      throw new SourceException("the query failed: " + message(e));
    }
    if (job == null) {
      throw new SourceException("query job " + jobId.getJob() + " disappeared");
    }
    BigQueryError error = job.getStatus().getError();
    if (error != null) {
      throw new SourceException("the query failed: " + error.getMessage());
    }
    TableId result = ((QueryJobConfiguration) job.getConfiguration()).getDestinationTable();
    if (result == null) {
      throw new SourceException("query job " + jobId.getJob() + " names no result table");
    }
    Table table = getTable(result);
    StandardTableDefinition definition = table.getDefinition();
    return new Source(
        "query (job " + jobId.getJob() + ")",
        result,
        definition.getSchema(),
        rows(definition.getNumRows()),
        "query:" + TableSpec.format(result) + "@" + table.getLastModifiedTime());
  }

  private QueryJobConfiguration configuration(QuerySpec query, String key) {
    QueryJobConfiguration.Builder builder =
        QueryJobConfiguration.newBuilder(query.sql()).setUseLegacySql(query.legacySql());
    if (query.tempDataset().isPresent()) {
      String dataset = query.tempDataset().get();
      int separator = Math.max(dataset.indexOf(':'), dataset.indexOf('.'));
      TableId destination =
          separator < 0
              ? TableId.of(project, dataset, "backfill_" + key)
              : TableId.of(
                  dataset.substring(0, separator),
                  dataset.substring(separator + 1),
                  "backfill_" + key);
      builder
          .setDestinationTable(destination)
          .setCreateDisposition(JobInfo.CreateDisposition.CREATE_IF_NEEDED)
          .setWriteDisposition(JobInfo.WriteDisposition.WRITE_TRUNCATE);
      if (query.legacySql()) {
        builder.setAllowLargeResults(true);
      }
    }
    query
        .kmsKey()
        .ifPresent(
            kms ->
                builder.setDestinationEncryptionConfiguration(
                    EncryptionConfiguration.newBuilder().setKmsKeyName(kms).build()));
    return builder.build();
  }

  private Table getTable(TableId tableId) {
    Table table;
    try {
      table = bigQuery.getTable(tableId);
    } catch (BigQueryException e) {
      throw new SourceException(
          "cannot read BigQuery table " + TableSpec.format(tableId) + ": " + message(e));
    }
    if (table == null) {
      throw new SourceException("BigQuery table " + TableSpec.format(tableId) + " does not exist");
    }
    return table;
  }

  private static long rows(Long numRows) {
    return numRows == null ? 0 : numRows;
  }

  static String message(BigQueryException e) {
    String message = e.getMessage() == null ? "HTTP " + e.getCode() : e.getMessage();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static String hash(Object... parts) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (Object part : parts) {
        digest.update(String.valueOf(part).getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0);
      }
      return HexFormat.of().formatHex(digest.digest()).substring(0, 24);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
