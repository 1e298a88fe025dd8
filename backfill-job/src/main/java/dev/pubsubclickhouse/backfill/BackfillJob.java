package dev.pubsubclickhouse.backfill;

import com.clickhouse.client.api.Client;
import com.google.cloud.bigquery.BigQuery;
import com.google.cloud.bigquery.BigQueryException;
import com.google.cloud.bigquery.Schema;
import dev.pubsubclickhouse.backfill.progress.JobLog;
import dev.pubsubclickhouse.backfill.progress.JobWriteEvents;
import dev.pubsubclickhouse.backfill.progress.Progress;
import dev.pubsubclickhouse.backfill.source.BigQueryClients;
import dev.pubsubclickhouse.backfill.source.ClientPageReader;
import dev.pubsubclickhouse.backfill.source.PageReader;
import dev.pubsubclickhouse.backfill.source.RestPageReader;
import dev.pubsubclickhouse.backfill.source.RowRange;
import dev.pubsubclickhouse.backfill.source.Source;
import dev.pubsubclickhouse.backfill.source.SourceException;
import dev.pubsubclickhouse.backfill.source.SourceResolver;
import dev.pubsubclickhouse.backfill.source.SourceResolver.QuerySpec;
import dev.pubsubclickhouse.backfill.source.TableSpec;
import dev.pubsubclickhouse.backfill.write.BigQueryDeadLetters;
import dev.pubsubclickhouse.backfill.write.Checkpoints;
import dev.pubsubclickhouse.backfill.write.ColumnPlan;
import dev.pubsubclickhouse.backfill.write.PageEncoder;
import dev.pubsubclickhouse.backfill.write.PageWriter;
import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.insert.ClickHouseClients;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableNotFoundException;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import dev.pubsubclickhouse.core.write.DeadLetterTable;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.TargetTable;
import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One task of a backfill execution, as numbered steps: connect, find the source, plan the columns,
 * open the dead-letter sinks and checkpoints, then read this task's rows page by page into
 * ClickHouse. Returns the process exit code: 0 when every row read was written or dead-lettered.
 */
public final class BackfillJob {
  /** Rejected rows logged one by one when there is no dead-letter sink to keep them. */
  private static final int LOGGED_REJECTIONS = 20;

  private final BackfillConfig config;
  private final JobLog log;
  private final PrintStream bar;
  private final Clock clock = Clock.systemUTC();

  /**
   * @param bar where a terminal's progress bar goes, or null for progress log lines
   */
  public BackfillJob(BackfillConfig config, JobLog log, PrintStream bar) {
    this.config = config;
    this.log = log;
    this.bar = bar;
  }

  public int run() {
    for (String note : config.notes()) {
      log.warning(note, Map.of());
    }
    log.info("backfill starting", startFields());
    Client client = ClickHouseClients.open(config.clickHouse(), "pubsub-clickhouse-backfill", 4);
    try {
      return run(client);
    } catch (FailedStart e) {
      log.error("backfill failed before reading: " + e.getMessage(), Map.of());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.error("backfill interrupted", Map.of());
      return 1;
    } finally {
      client.close();
    }
  }

  private int run(Client client) throws InterruptedException {
    // 1. The target table, which also shows that ClickHouse answers.
    TableSchema target = start(() -> new SchemaReader(client).read(config.clickHouse().table()));
    BigQuery bigQuery =
        BigQueryClients.open(
            config.project(),
            config.queryLocation(),
            config.bigQueryEndpoint(),
            config.credentialsWithEndpoint());
    SourceResolver resolver = new SourceResolver(bigQuery, config.project());

    // 2. The source's schema; in a dry run without running the query or reading a row.
    Source source = null;
    Schema schema;
    if (config.dryRun()) {
      schema =
          start(
              () ->
                  config.query().isPresent()
                      ? resolver.schemaOf(querySpec())
                      : resolver.describeTable(config.inputTable().orElseThrow()).schema());
    } else {
      Source resolved =
          start(
              () ->
                  config.query().isPresent()
                      ? resolver.query(querySpec(), config.executionId())
                      : resolver.table(config.inputTable().orElseThrow(), config.executionId()));
      source = resolved;
      schema = resolved.schema();
    }

    // 3. Which field fills which column; a misfit stops here.
    ColumnPlan plan = start(() -> ColumnPlan.of(schema, target));
    if (!plan.ignoredFields().isEmpty()) {
      log.warning(
          "BigQuery fields without a ClickHouse column are ignored",
          Map.of("fields", plan.ignoredFields()));
    }
    if (config.dryRun()) {
      log.text(plan.describe());
      log.info(
          "dry run: parameters, schemas and type mapping are valid; nothing was read or written",
          Map.of(
              "deadLetters",
              plannedDeadLetters(),
              "checkpointTable",
              config.checkpointTable().map(Object::toString).orElse("none")));
      return 0;
    }
    log.info("column plan", Map.of("columns", plan.mappings().size(), "plan", plan.describe()));

    // 4. Where rejected rows go, and the checkpoints.
    ClickHouseInserter inserter =
        new ClickHouseInserter(
            ClickHouseHttp.open(config.clickHouse(), "pubsub-clickhouse-backfill"),
            start(() -> InsertFormat.supportedBy(client)),
            config.clickHouse().insertOptions());
    start(
        () -> {
          try {
            inserter.checkPassedSettings();
          } catch (IllegalArgumentException e) {
            throw new ConfigurationException(ClickHouseParameters.SETTINGS, e.getMessage());
          }
          return null;
        });
    List<DeadLetterSink> sinks = start(() -> deadLetterSinks(client, inserter, bigQuery));
    Checkpoints checkpoints =
        config.checkpointTable().isPresent()
            ? start(() -> Checkpoints.open(client, config.checkpointTable().get(), inserter))
            : null;
    TargetTable table =
        start(() -> new TargetTable(config.clickHouse().table(), new SchemaReader(client)));

    // 5. This task's rows, and where an earlier run left them.
    RowRange range = RowRange.forTask(source.totalRows(), config.taskIndex(), config.taskCount());
    String targetName = config.clickHouse().table().toString();
    String fingerprint = source.fingerprint();
    long from =
        checkpoints == null
            ? range.start()
            : start(() -> checkpoints.resumePosition(targetName, fingerprint, range));
    Map<String, Object> taskFields = new LinkedHashMap<>();
    taskFields.put("source", source.description());
    taskFields.put("sourceRows", source.totalRows());
    taskFields.put("task", config.taskIndex());
    taskFields.put("tasks", config.taskCount());
    taskFields.put("range", range.toString());
    if (from > range.start()) {
      taskFields.put("resumeAt", from);
    }
    log.info("reading", taskFields);

    // 6. Read, encode, insert, page by page.
    PageWriter writer =
        new PageWriter(
            new TableWriter(
                table, inserter, sinks, new JobWriteEvents(log), "bigquery\n" + fingerprint),
            fingerprint,
            config.clickHouse().insertOptions().maxInsertBlockSize(),
            clock);
    PageReader reader =
        config.pageReader() == BackfillConfig.PageReaderKind.STREAM
            ? new RestPageReader(bigQuery.getOptions(), schema)
            : new ClientPageReader(bigQuery, schema);
    Progress progress = new Progress(range.size(), log, bar);
    progress.skipped(from - range.start());
    progress.start(config.progressInterval().toSeconds());
    List<String> unkept = new ArrayList<>();
    Exception failure = null;
    try (progress) {
      new TaskRun(
              reader,
              source.table(),
              config.pageRows(),
              config.prefetchPages(),
              new PageEncoder(table.current().encoder()),
              writer,
              progress)
          .run(
              range,
              from,
              (page, result) -> {
                logRefusals(result, unkept);
                long rejected = result.deadLettered() + result.refused();
                progress.pageDone(result.written(), rejected, result.deadLettered());
                if (checkpoints != null) {
                  checkpoints.record(
                      targetName,
                      fingerprint,
                      page.startIndex(),
                      page.rowsRead(),
                      result.written(),
                      rejected,
                      config.taskIndex(),
                      config.taskCount(),
                      config.executionId(),
                      clock.instant());
                }
              });
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      failure = e;
    }

    // 7. The summary and the exit code.
    Map<String, Object> summary = progress.fields();
    summary.put("task", config.taskIndex());
    summary.put("tasks", config.taskCount());
    if (failure != null) {
      summary.put("error", describe(failure));
      log.error("backfill failed: " + describe(failure), summary);
      return 1;
    }
    long notKept = progress.rejected() - progress.deadLettered();
    if (notKept > 0) {
      summary.put("rejectedNotKept", notKept);
      log.error(
          "backfill finished, but "
              + notKept
              + " rejected rows have no dead-letter table to keep them (set"
              + " OUTPUT_DEADLETTER_TABLE or CLICKHOUSE_DEAD_LETTER_TABLE)",
          summary);
      return 1;
    }
    log.info("backfill finished", summary);
    return 0;
  }

  private void logRefusals(PageWriter.Result result, List<String> unkept) {
    for (String refusal : result.refusals()) {
      if (unkept.size() < LOGGED_REJECTIONS) {
        unkept.add(refusal);
        log.warning("row rejected", Map.of("reason", refusal));
      }
    }
  }

  private List<DeadLetterSink> deadLetterSinks(
      Client client, ClickHouseInserter inserter, BigQuery bigQuery) {
    List<DeadLetterSink> sinks = new ArrayList<>();
    if (config.clickHouse().deadLetterTable().isPresent()) {
      sinks.add(
          DeadLetterTable.open(
              client,
              config.clickHouse().deadLetterTable().get(),
              config.clickHouse().createDeadLetterTable(),
              inserter));
    }
    config
        .deadLetterTable()
        .ifPresent(table -> sinks.add(BigQueryDeadLetters.open(bigQuery, table, true)));
    return sinks;
  }

  private List<String> plannedDeadLetters() {
    List<String> planned = new ArrayList<>();
    config.clickHouse().deadLetterTable().ifPresent(t -> planned.add("ClickHouse " + t));
    config.deadLetterTable().ifPresent(t -> planned.add("BigQuery " + TableSpec.format(t)));
    return planned;
  }

  private QuerySpec querySpec() {
    return new QuerySpec(
        config.query().orElseThrow(),
        config.useLegacySql(),
        config.queryLocation(),
        config.queryTempDataset(),
        config.kmsKey());
  }

  private Map<String, Object> startFields() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("source", config.sourceDescription());
    fields.put("clickhouse", config.clickHouse().url().toString());
    fields.put("table", config.clickHouse().table().toString());
    fields.put("task", config.taskIndex());
    fields.put("tasks", config.taskCount());
    fields.put("dryRun", config.dryRun());
    config.bigQueryEndpoint().ifPresent(e -> fields.put("bigQueryEndpoint", e.toString()));
    return fields;
  }

  /** A step before any row is read; its failure is one line. */
  private interface Step<T> {
    T get() throws Exception;
  }

  private <T> T start(Step<T> step) throws InterruptedException {
    try {
      return step.get();
    } catch (InterruptedException e) {
      throw e;
    } catch (SourceException
        | TableNotFoundException
        | ColumnPlan.PlanException
        | ConfigurationException
        | IllegalStateException e) {
      throw new FailedStart(e.getMessage(), e);
    } catch (BigQueryException e) {
      throw new FailedStart("BigQuery: " + describe(e), e);
    } catch (Exception e) {
      throw new FailedStart(
          "cannot use ClickHouse at " + config.clickHouse().url() + ": " + describe(e), e);
    }
  }

  /** One line: the message's first line, or the exception's name. */
  private String describe(Throwable e) {
    if (e instanceof PageWriter.PageNotWrittenException && e.getCause() != null) {
      e = e.getCause();
    }
    String message = e.getMessage();
    if (e instanceof InsertException insert) {
      message =
          "ClickHouse at "
              + config.clickHouse().url()
              + " did not take a page: "
              + insert.getMessage();
    }
    if (message == null || message.isBlank()) {
      message = e.getClass().getSimpleName();
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static final class FailedStart extends RuntimeException {
    FailedStart(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
