package dev.pubsubclickhouse.backfill;

import com.clickhouse.client.api.Client;
import com.google.cloud.bigquery.BigQuery;
import com.google.cloud.bigquery.BigQueryException;
import com.google.cloud.bigquery.Schema;
import dev.pubsubclickhouse.backfill.BackfillConfig.PageReaderKind;
import dev.pubsubclickhouse.backfill.plan.PlanStore;
import dev.pubsubclickhouse.backfill.plan.TaskPlan;
import dev.pubsubclickhouse.backfill.progress.JobWriteEvents;
import dev.pubsubclickhouse.backfill.progress.Progress;
import dev.pubsubclickhouse.backfill.source.BigQueryClients;
import dev.pubsubclickhouse.backfill.source.BigQueryRetry;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import dev.pubsubclickhouse.backfill.source.RowRange;
import dev.pubsubclickhouse.backfill.source.SourceException;
import dev.pubsubclickhouse.backfill.source.SourceResolver;
import dev.pubsubclickhouse.backfill.source.StorageReads;
import dev.pubsubclickhouse.backfill.source.TableSpec;
import dev.pubsubclickhouse.backfill.write.BigQueryDeadLetters;
import dev.pubsubclickhouse.backfill.write.Checkpoints;
import dev.pubsubclickhouse.backfill.write.ColumnPlan;
import dev.pubsubclickhouse.backfill.write.PageEncoder;
import dev.pubsubclickhouse.backfill.write.PageWriter;
import dev.pubsubclickhouse.backfill.write.TableDefinition;
import dev.pubsubclickhouse.backfill.write.TargetVersion;
import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.insert.ClickHouseClients;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.ClickHouseReasons;
import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableNotFoundException;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import dev.pubsubclickhouse.core.write.DeadLetterTable;
import dev.pubsubclickhouse.core.write.TargetTable;
import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One task of a backfill execution: connect, plan (the execution's pinned snapshot and this task's
 * share of it), then execute the plan page by page into ClickHouse. Returns the process exit code:
 * 0 when every row read was written or dead-lettered.
 */
public final class BackfillJob {
  private final BackfillConfig config;
  private final PrintStream bar;
  private final Clock clock = Clock.systemUTC();
  private final BigQueryRetry retry;

  /**
   * @param bar where a terminal's progress bar goes, or null for progress log lines
   */
  public BackfillJob(BackfillConfig config, PrintStream bar) {
    this.config = config;
    this.bar = bar;
    this.retry = BigQueryRetry.withAttempts(config.read().bigQueryMaxAttempts());
  }

  public int run() {
    for (String note : config.notes()) {
      JsonLog.warning(note, Map.of());
    }
    JsonLog.info("backfill starting", startFields());
    Client client = ClickHouseClients.open(config.clickHouse(), "pubsub-clickhouse-backfill", 4);
    try {
      BigQuery bigQuery = bigQuery();
      SourceResolver resolver = new SourceResolver(bigQuery, config.project(), retry);
      return config.dryRun() ? dryRun(client, resolver, bigQuery) : execute(client, resolver);
    } catch (FailedStart e) {
      JsonLog.error(
          "backfill failed before reading: " + e.getMessage(),
          Map.of(),
          config.verbose() ? e.getCause() : null);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      JsonLog.error("backfill interrupted", Map.of());
      return 1;
    } finally {
      client.close();
    }
  }

  /** Checks parameters, both schemas, the type mapping and the dead letters; writes nothing. */
  private int dryRun(Client client, SourceResolver resolver, BigQuery bigQuery)
      throws InterruptedException {
    Optional<TableSchema> existing = start(usingClickHouse(), () -> target(client));
    Schema schema =
        start(
            usingBigQuery(),
            () ->
                config.query().isPresent()
                    ? resolver.schemaOf(config.querySpec())
                    : resolver.describe(config.inputTable().orElseThrow()).schema());
    TableName targetName = config.clickHouse().table();
    if (existing.isEmpty()) {
      JsonLog.text(
          TableDefinition.createStatement(targetName, schema, config.tableCreation().orderBy()));
    }
    TableSchema target = existing.orElseGet(() -> TableDefinition.schemaOf(targetName, schema));
    ColumnPlan plan = columnPlan(schema, target);
    JsonLog.text(plan.describe());
    if (config.deadLetterTable().isPresent()) {
      start(
          usingBigQuery(),
          () -> {
            DeadLetterCheck.check(bigQuery, config.deadLetterTable().get(), retry);
            return null;
          });
    }
    JsonLog.info(
        "dry run: parameters, schemas and type mapping are valid; nothing was read or written",
        Map.of(
            "deadLetters",
            plannedDeadLetters(),
            "checkpointTable",
            config.checkpointTable().map(Object::toString).orElse("none"),
            "createTable",
            existing.isEmpty()));
    return 0;
  }

  /** Plans this task's share of the execution's snapshot and writes it. */
  private int execute(Client client, SourceResolver resolver) throws InterruptedException {
    Optional<TableSchema> existing = start(usingClickHouse(), () -> target(client));
    ClickHouseInserter inserter =
        new ClickHouseInserter(
            ClickHouseHttp.open(config.clickHouse(), "pubsub-clickhouse-backfill"),
            start(usingClickHouse(), () -> InsertFormat.supportedBy(client)),
            config.clickHouse().insertOptions());
    start(
        usingClickHouse(),
        () -> {
          try {
            inserter.checkPassedSettings();
          } catch (IllegalArgumentException e) {
            throw new ConfigurationException(ClickHouseParameters.SETTINGS, e.getMessage());
          }
          return null;
        });
    List<DeadLetterSink> sinks =
        start(
            failing("cannot open the dead-letter tables"), () -> deadLetterSinks(client, inserter));
    Optional<Checkpoints> checkpoints =
        start(usingClickHouse(), () -> checkpoints(client, inserter));
    Optional<PlanStore> plans = start(usingClickHouse(), () -> planStore(client));
    StorageReads storage =
        config.read().reader() == PageReaderKind.STORAGE
            ? start(
                failing("cannot use BigQuery's Storage Read API"),
                () ->
                    StorageReads.open(
                        config.read().storageEndpoint(), config.credentialsWithEndpoint(), retry))
            : null;
    try {
      TaskPlan plan =
          start(
              failing("cannot plan the execution"),
              () ->
                  new ExecutionPlanner(
                          config,
                          resolver,
                          resolver.bigQuery(),
                          plans,
                          checkpoints,
                          storage,
                          retry,
                          clock)
                      .plan());
      TableSchema target =
          existing.isPresent()
              ? existing.get()
              : start(usingClickHouse(), () -> createTarget(client, plan.schema()));
      ColumnPlan columns = columnPlan(plan.schema(), target);
      JsonLog.info(
          "column plan", Map.of("columns", columns.mappings().size(), "plan", columns.describe()));
      TargetTable table =
          start(
              usingClickHouse(),
              () -> new TargetTable(config.clickHouse().table(), new SchemaReader(client)));
      return write(
          plan,
          table,
          new PageHandoff(table, inserter, sinks, new JobWriteEvents(), clock),
          checkpoints,
          () -> TargetVersion.of(client, config.clickHouse().table()));
    } finally {
      if (storage != null) {
        storage.close();
      }
    }
  }

  /**
   * Writes the rows earlier runs of the same source refused, when the target may take them now,
   * then reads the parts of this task's units that no earlier attempt (or execution) wrote, and
   * writes them.
   */
  private int write(
      TaskPlan plan,
      TargetTable table,
      PageHandoff handoff,
      Optional<Checkpoints> checkpoints,
      Supplier<String> targetVersion)
      throws InterruptedException {
    for (String warning : plan.warnings()) {
      JsonLog.warning(warning, Map.of());
    }
    Set<String> finished =
        checkpoints.isPresent() && plan.readSessionOf().isPresent()
            ? start(usingClickHouse(), () -> checkpoints.get().finishedUnits(plan.origin()))
            : Set.of();
    List<ReadUnit> units = plan.units().stream().filter(u -> !finished.contains(u.key())).toList();
    Map<ReadUnit, List<RowRange>> unwritten = new HashMap<>();
    long resumed = 0;
    for (ReadUnit unit : units) {
      List<RowRange> parts =
          checkpoints.isEmpty()
              ? List.of(unit.range())
              : start(
                  usingClickHouse(), () -> checkpoints.get().unwritten(unit.key(), unit.range()));
      unwritten.put(unit, parts);
      resumed += unit.range().size() - parts.stream().mapToLong(RowRange::size).sum();
    }
    if (plan.readSessionOf().isPresent() && units.isEmpty()) {
      JsonLog.info(
          "nothing to read: "
              + plan.description()
              + " is unchanged since execution "
              + plan.readSessionOf().get()
              + " wrote it into "
              + config.clickHouse().table()
              + " (every stream of its read session is done)",
          Map.of("task", config.taskIndex(), "tasks", config.taskCount()));
    } else {
      JsonLog.info("reading", taskFields(plan, units, resumed, finished.size()));
    }

    Progress progress = new Progress(plan.taskRows(), bar);
    progress.skipped(resumed);
    progress.start(config.progressInterval().toSeconds());
    Exception failure = null;
    try (progress) {
      if (checkpoints.isPresent()) {
        recoverRefusedRows(plan, handoff, table, checkpoints.get(), progress, targetVersion);
      }
      new TaskRun(
              config.read().prefetchPages(),
              new PageEncoder(table.current().encoder()),
              new PageCompletion(handoff, checkpoints, progress, plan.origin(), targetVersion),
              progress)
          .run(units, unwritten);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      failure = e;
    }
    return summary(progress, failure);
  }

  private void recoverRefusedRows(
      TaskPlan plan,
      PageHandoff handoff,
      TargetTable table,
      Checkpoints checkpoints,
      Progress progress,
      Supplier<String> targetVersion)
      throws Exception {
    RefusedRowsRecovery.Result recovery =
        new RefusedRowsRecovery(
                checkpoints,
                handoff,
                new PageEncoder(table.current().encoder()),
                progress,
                plan.origin(),
                targetVersion,
                config.retryDeadLetters())
            .run();
    if (!recovery.any()) {
      return;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("pages", recovery.pages());
    fields.put("recovered", recovery.recovered());
    fields.put("stillRefused", recovery.stillRefused());
    fields.put("leftInDeadLetters", recovery.leftAlone());
    JsonLog.info(
        recovery.pages() > 0
            ? "rows earlier runs refused were tried again: "
                + recovery.recovered()
                + " written, "
                + recovery.stillRefused()
                + " refused again"
            : recovery.leftAlone()
                + " rows earlier runs dead-lettered stay there: "
                + config.clickHouse().table()
                + " has not changed since it refused them (RETRY_DEAD_LETTERS=true tries them"
                + " anyway)",
        fields);
  }

  /** The last line and the exit code. */
  private int summary(Progress progress, Exception failure) {
    Map<String, Object> summary = progress.fields();
    summary.put("task", config.taskIndex());
    summary.put("tasks", config.taskCount());
    if (failure != null) {
      summary.put("error", describe(failure));
      JsonLog.error(
          "backfill failed: " + describe(failure), summary, config.verbose() ? failure : null);
      return 1;
    }
    long notKept = progress.rejected() - progress.deadLettered();
    if (notKept > 0) {
      summary.put("rejectedNotKept", notKept);
      JsonLog.error(
          "backfill finished, but "
              + notKept
              + " rejected rows have no dead-letter table to keep them (set"
              + " OUTPUT_DEADLETTER_TABLE or CLICKHOUSE_DEAD_LETTER_TABLE)",
          summary);
      return 1;
    }
    JsonLog.info("backfill finished", summary);
    return 0;
  }

  private Map<String, Object> taskFields(
      TaskPlan plan, List<ReadUnit> units, long resumed, int finished) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("source", plan.description());
    plan.snapshotTime().ifPresent(t -> fields.put("snapshotTime", t.toString()));
    fields.put("sourceRows", plan.sourceRows());
    fields.put("task", config.taskIndex());
    fields.put("tasks", config.taskCount());
    fields.put("reader", config.read().reader().name().toLowerCase(java.util.Locale.ROOT));
    fields.put("units", units.stream().map(ReadUnit::describe).toList());
    if (resumed > 0) {
      fields.put("resumedAfter", resumed);
    }
    plan.readSessionOf().ifPresent(e -> fields.put("readSessionOf", e));
    if (finished > 0) {
      fields.put("unitsFinishedBefore", finished);
    }
    return fields;
  }

  /** The target table, or empty when it is missing and --createTable will make it. */
  private Optional<TableSchema> target(Client client) {
    try {
      return Optional.of(new SchemaReader(client).read(config.clickHouse().table()));
    } catch (TableNotFoundException e) {
      if (config.tableCreation().create()) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private TableSchema createTarget(Client client, Schema schema) throws Exception {
    String statement =
        TableDefinition.createStatement(
            config.clickHouse().table(), schema, config.tableCreation().orderBy());
    try (var created = client.execute(statement).get()) {
      // DDL answers nothing worth reading.
    } catch (Exception e) {
      if (ClickHouseFailures.serverCode(e) < 0) {
        throw e;
      }
      // ClickHouse answered: the statement, not the connection, is what failed.
      throw new IllegalStateException(
          "ClickHouse refused the CREATE TABLE of --createTable: " + ClickHouseFailures.describe(e),
          e);
    }
    JsonLog.info(
        "table created",
        Map.of("table", config.clickHouse().table().toString(), "statement", statement));
    return new SchemaReader(client).read(config.clickHouse().table());
  }

  private ColumnPlan columnPlan(Schema schema, TableSchema target) throws InterruptedException {
    ColumnPlan plan = start(failing("cannot map the columns"), () -> ColumnPlan.of(schema, target));
    if (!plan.ignoredFields().isEmpty()) {
      JsonLog.warning(
          "BigQuery fields without a ClickHouse column are ignored",
          Map.of("fields", plan.ignoredFields()));
    }
    return plan;
  }

  private List<DeadLetterSink> deadLetterSinks(Client client, ClickHouseInserter inserter)
      throws InterruptedException {
    List<DeadLetterSink> sinks = new ArrayList<>();
    DeadLetterTable.configured(client, config.clickHouse(), inserter).ifPresent(sinks::add);
    if (config.deadLetterTable().isPresent()) {
      BigQuery writer = bigQuery();
      DeadLetterCheck.check(writer, config.deadLetterTable().get(), retry);
      sinks.add(BigQueryDeadLetters.open(writer, config.deadLetterTable().get(), true, retry));
    }
    return sinks;
  }

  private Optional<Checkpoints> checkpoints(Client client, ClickHouseInserter inserter)
      throws Exception {
    if (config.checkpointTable().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        Checkpoints.open(
            client,
            config.checkpointTable().get(),
            inserter,
            new Checkpoints.Writer(
                config.clickHouse().table().toString(),
                config.taskIndex(),
                config.taskCount(),
                config.executionId()),
            clock));
  }

  private Optional<PlanStore> planStore(Client client) throws Exception {
    if (config.checkpointTable().isEmpty()) {
      return Optional.empty();
    }
    TableName checkpoints = config.checkpointTable().get();
    TableName plans = new TableName(checkpoints.database(), checkpoints.table() + "_plans");
    return Optional.of(PlanStore.open(client, plans, config.taskIndex(), clock));
  }

  private BigQuery bigQuery() {
    return BigQueryClients.open(
        config.project(),
        config.queryLocation(),
        config.bigQueryEndpoint(),
        config.credentialsWithEndpoint());
  }

  private List<String> plannedDeadLetters() {
    List<String> planned = new ArrayList<>();
    config.clickHouse().deadLetterTable().ifPresent(t -> planned.add("ClickHouse " + t));
    config.deadLetterTable().ifPresent(t -> planned.add("BigQuery " + TableSpec.format(t)));
    return planned;
  }

  private Map<String, Object> startFields() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("source", config.sourceDescription());
    fields.put("clickhouse", config.clickHouse().url().toString());
    fields.put("table", config.clickHouse().table().toString());
    fields.put("task", config.taskIndex());
    fields.put("tasks", config.taskCount());
    fields.put("execution", config.executionId());
    fields.put("dryRun", config.dryRun());
    config.bigQueryEndpoint().ifPresent(e -> fields.put("bigQueryEndpoint", e.toString()));
    return fields;
  }

  /** A step before any row is read; its failure is one line. */
  private interface Step<T> {
    T get() throws Exception;
  }

  /** A ClickHouse step's failure, in the words the push service and replay use too. */
  private Function<Exception, String> usingClickHouse() {
    return e -> ClickHouseReasons.cannotUse(config.clickHouse().url(), e);
  }

  private Function<Exception, String> usingBigQuery() {
    return failing("cannot use BigQuery");
  }

  /** What could not be done, then the failure's own first line. */
  private Function<Exception, String> failing(String what) {
    return e -> what + ": " + describe(e);
  }

  /**
   * Runs {@code step}; a failure the step's own checks do not describe is reported by {@code
   * reason}: what could not be done, naming only the service the step uses.
   */
  private <T> T start(Function<Exception, String> reason, Step<T> step)
      throws InterruptedException {
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
      throw new FailedStart(reason.apply(e), e);
    }
  }

  /** One line: the message's first line, or the exception's name. */
  private String describe(Throwable e) {
    if (e instanceof PageWriter.PageNotWrittenException && e.getCause() != null) {
      e = e.getCause();
    }
    if (e instanceof InsertException insert) {
      return firstLine(
          new IllegalStateException(
              "ClickHouse at "
                  + config.clickHouse().url()
                  + " did not take a page: "
                  + insert.getMessage()));
    }
    return firstLine(e);
  }

  static String firstLine(Throwable e) {
    String message = e.getMessage();
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
