package dev.pubsubclickhouse.backfill.source;

import com.google.cloud.bigquery.BigQuery;
import com.google.cloud.bigquery.BigQueryError;
import com.google.cloud.bigquery.BigQueryException;
import com.google.cloud.bigquery.EncryptionConfiguration;
import com.google.cloud.bigquery.Job;
import com.google.cloud.bigquery.JobId;
import com.google.cloud.bigquery.JobInfo;
import com.google.cloud.bigquery.JobStatistics.QueryStatistics;
import com.google.cloud.bigquery.JobStatus;
import com.google.cloud.bigquery.QueryJobConfiguration;
import com.google.cloud.bigquery.Schema;
import com.google.cloud.bigquery.StandardTableDefinition;
import com.google.cloud.bigquery.Table;
import com.google.cloud.bigquery.TableDefinition;
import com.google.cloud.bigquery.TableId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds what to read: the input table as it was at the execution's snapshot time, or the result
 * table of the query. Every call goes through the job's {@link BigQueryRetry} policy.
 *
 * <p>A query runs as a job whose id is derived from the query text, its options and the execution
 * id, so every task of one execution, and every retry of a task, finds the same job and reads the
 * same result table instead of running the query again. Reading a table through REST runs {@code
 * SELECT * ... FOR SYSTEM_TIME AS OF} the execution's snapshot time the same way: tabledata.list
 * has no snapshot time of its own, and the query's result table holds exactly that snapshot.
 */
public final class SourceResolver {
  /** How to run a query. */
  public record QuerySpec(
      String sql,
      boolean legacySql,
      Optional<String> location,
      Optional<String> tempDataset,
      Optional<String> kmsKey) {
    public static QuerySpec standardSql(String sql, Optional<String> location) {
      return new QuerySpec(sql, false, location, Optional.empty(), Optional.empty());
    }
  }

  /**
   * A table's metadata as the job needs it.
   *
   * @param streaming rows are in its streaming buffer: its last-modified time may not say so
   */
  public record TableFacts(
      TableId table,
      Schema schema,
      long rows,
      boolean readableAsTable,
      Long lastModified,
      boolean streaming) {

    /**
     * Names the table's content as of its last modification: the same for every execution that
     * reads it unchanged, and different once it changed.
     */
    public String version() {
      return "table:" + TableSpec.format(table) + "@" + lastModified + "#" + rows;
    }
  }

  /** The job label holding the hash of the plan the job was made for. */
  private static final String PLAN_LABEL = "backfill-plan";

  /** The job label holding the source table's last modification when the job was made. */
  private static final String VERSION_LABEL = "source-version";

  private static final Pattern SNAPSHOT =
      Pattern.compile("FOR SYSTEM_TIME AS OF TIMESTAMP_MILLIS\\((\\d+)\\)");
  private static final long POLL_FIRST_MILLIS = 100;
  private static final long POLL_MAX_MILLIS = 2_000;

  private final BigQuery bigQuery;
  private final String project;
  private final BigQueryRetry retry;

  public SourceResolver(BigQuery bigQuery, String project, BigQueryRetry retry) {
    this.bigQuery = bigQuery;
    this.project = project;
    this.retry = retry;
  }

  public BigQuery bigQuery() {
    return bigQuery;
  }

  /**
   * The table's schema and row count, and whether it can be read as a table (a view cannot).
   *
   * @throws SourceException when it does not exist or cannot be read
   */
  public TableFacts describe(TableId tableId) throws InterruptedException {
    Table table = getTable(tableId);
    TableDefinition definition = table.getDefinition();
    boolean standard = definition instanceof StandardTableDefinition;
    long rows = standard ? rows(((StandardTableDefinition) definition).getNumRows()) : -1;
    boolean streaming =
        standard && ((StandardTableDefinition) definition).getStreamingBuffer() != null;
    return new TableFacts(
        tableId, definition.getSchema(), rows, standard, table.getLastModifiedTime(), streaming);
  }

  /**
   * The table as it was at the execution's snapshot time (a view: as it is when the query runs),
   * with only the rows that match {@code where}, as the result table of one query per execution.
   * The first task to insert the query job pins the snapshot time; every other task finds that job
   * and reads the time from it.
   *
   * @param proposed the snapshot time this task proposes, used when it is the first
   * @param plan identifies what the execution was asked to do (see {@link #query})
   */
  public Source snapshot(
      TableFacts table, Instant proposed, Optional<String> where, String executionId, String plan)
      throws InterruptedException {
    TableId id = table.table();
    StringBuilder sql =
        new StringBuilder("SELECT * FROM `")
            .append(id.getProject())
            .append('.')
            .append(id.getDataset())
            .append('.')
            .append(id.getTable())
            .append('`');
    if (table.readableAsTable()) {
      sql.append(" FOR SYSTEM_TIME AS OF TIMESTAMP_MILLIS(")
          .append(proposed.toEpochMilli())
          .append(')');
    }
    where.ifPresent(condition -> sql.append(" WHERE ").append(condition));
    // The table's version at the first task's snapshot: while the table does not change, every
    // execution reads the same rows, and so shares checkpoints and deduplication tokens.
    String version = String.valueOf(table.lastModified());
    Ran ran =
        run(
            QuerySpec.standardSql(sql.toString(), Optional.empty()),
            executionId,
            plan,
            Map.of(VERSION_LABEL, version));
    Source result = ran.source();
    String pinnedVersion =
        ran.job().<QueryJobConfiguration>getConfiguration().getLabels().get(VERSION_LABEL);
    String description =
        TableSpec.format(id)
            + result.snapshotTime().map(t -> " as of " + t).orElse("")
            + where.map(w -> " where " + w).orElse("");
    // A view's last-modified time is its definition's: the rows under it change without it, so
    // each execution's query of it is content of its own.
    String identity =
        table.readableAsTable()
            ? "table:" + TableSpec.format(id) + "@" + pinnedVersion
            : "view:" + TableSpec.format(id) + "@" + ran.job().getJobId().getJob();
    return new Source(
        description,
        result.table(),
        result.schema(),
        result.totalRows(),
        identity + where.map(w -> "|" + w).orElse(""),
        result.snapshotTime());
  }

  /** The schema the query result will have, without running it (dry run). */
  public Schema schemaOf(QuerySpec query) throws InterruptedException {
    QueryJobConfiguration configuration =
        configuration(query, "dryrun").toBuilder().setDryRun(true).build();
    JobId jobId =
        JobId.newBuilder().setProject(project).setLocation(query.location().orElse(null)).build();
    Job job;
    try {
      job =
          retry.call(
              "jobs.insert (dry run)",
              "the query",
              () -> bigQuery.create(JobInfo.newBuilder(configuration).setJobId(jobId).build()));
    } catch (SourceException e) {
      throw new SourceException("the query is not valid: " + BigQueryRetry.describe(e));
    }
    QueryStatistics statistics = job.getStatistics();
    if (statistics == null || statistics.getSchema() == null) {
      throw new SourceException("the query's dry run returned no schema");
    }
    return statistics.getSchema();
  }

  /**
   * Runs the query once per execution, waits, and returns its result table. The job's id is derived
   * from the execution, so every task (and every retry) of it finds the same job and reads the same
   * result; the job carries the plan's hash as a label, so a task started with other parameters
   * than the execution's first finds that out and fails.
   *
   * @param plan identifies what the execution was asked to do: source, condition, target, tasks,
   *     page size
   * @throws SourceException when the query fails
   * @throws PlanChangedException when this execution's job was made for another plan
   */
  public Source query(QuerySpec query, String executionId, String plan)
      throws InterruptedException {
    return run(query, executionId, plan, Map.of()).source();
  }

  private record Ran(Job job, Source source) {}

  private Ran run(QuerySpec query, String executionId, String plan, Map<String, String> labels)
      throws InterruptedException {
    String key =
        hash(query.sql(), query.legacySql(), query.location(), query.tempDataset(), query.kmsKey());
    JobId jobId =
        JobId.newBuilder()
            .setProject(project)
            .setJob("backfill_" + hash("source", executionId))
            .setLocation(query.location().orElse(null))
            .build();
    String planLabel = hash(plan);
    Map<String, String> allLabels = new java.util.HashMap<>(labels);
    allLabels.put(PLAN_LABEL, planLabel);
    QueryJobConfiguration configuration =
        configuration(query, key).toBuilder().setLabels(allLabels).build();
    String request = "job " + jobId.getJob();
    Job job =
        retry.call(
            "jobs.insert",
            request,
            () -> {
              try {
                return bigQuery.create(JobInfo.newBuilder(configuration).setJobId(jobId).build());
              } catch (BigQueryException e) {
                if (e.getCode() != 409) {
                  throw e;
                }
                // Another task of this execution, an earlier attempt of this task, or our own
                // earlier attempt whose answer was lost, started it.
                return null;
              }
            });
    job = waitFor(jobId, job, request);
    QueryJobConfiguration ran = job.getConfiguration();
    String ranFor = ran.getLabels() == null ? null : ran.getLabels().get(PLAN_LABEL);
    if (!planLabel.equals(ranFor)) {
      throw new PlanChangedException(
          "execution "
              + executionId
              + " already ran its query (job "
              + jobId.getJob()
              + ") for other parameters than this task's: source, condition, target, task count"
              + " or page size differ; run a new execution instead of changing a running one");
    }
    BigQueryError error = job.getStatus().getError();
    if (error != null) {
      throw new SourceException("the query failed: " + error.getMessage());
    }
    TableId result = ran.getDestinationTable();
    if (result == null) {
      throw new SourceException("query job " + jobId.getJob() + " names no result table");
    }
    Table table = getTable(result);
    StandardTableDefinition definition = table.getDefinition();
    Matcher at = SNAPSHOT.matcher(ran.getQuery());
    Optional<Instant> snapshot =
        at.find()
            ? Optional.of(Instant.ofEpochMilli(Long.parseLong(at.group(1))))
            : Optional.empty();
    return new Ran(
        job,
        new Source(
            "query (job " + jobId.getJob() + ")",
            result,
            definition.getSchema(),
            rows(definition.getNumRows()),
            // BigQuery answers a query it ran before from its cache, with the same result table:
            // only the job, one per execution, tells two executions' results apart.
            "query:" + TableSpec.format(result) + "@" + jobId.getJob(),
            snapshot));
  }

  /** Polls jobs.get until the job is done; each poll is retried on its own. */
  private Job waitFor(JobId jobId, Job inserted, String request) throws InterruptedException {
    Job job = inserted;
    long pause = POLL_FIRST_MILLIS;
    while (job == null || !done(job)) {
      if (job != null) {
        Thread.sleep(pause);
        pause = Math.min(pause * 2, POLL_MAX_MILLIS);
      }
      job = retry.call("jobs.get", request, () -> bigQuery.getJob(jobId));
      if (job == null) {
        throw new SourceException("query job " + jobId.getJob() + " disappeared");
      }
    }
    return job;
  }

  /** The job's state as the last answer said (Job.isDone() would ask BigQuery again). */
  private static boolean done(Job job) {
    return job.getStatus() != null && job.getStatus().getState() == JobStatus.State.DONE;
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

  private Table getTable(TableId tableId) throws InterruptedException {
    Table table =
        retry.call("tables.get", TableSpec.format(tableId), () -> bigQuery.getTable(tableId));
    if (table == null) {
      throw new SourceException("BigQuery table " + TableSpec.format(tableId) + " does not exist");
    }
    return table;
  }

  private static long rows(Long numRows) {
    return numRows == null ? 0 : numRows;
  }

  static String hash(Object... parts) {
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
