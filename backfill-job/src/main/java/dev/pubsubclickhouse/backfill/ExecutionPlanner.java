package dev.pubsubclickhouse.backfill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.cloud.bigquery.BigQuery;
import com.google.cloud.bigquery.Schema;
import com.google.cloud.bigquery.TableId;
import dev.pubsubclickhouse.backfill.BackfillConfig.PageReaderKind;
import dev.pubsubclickhouse.backfill.plan.PlanStore;
import dev.pubsubclickhouse.backfill.plan.TaskPlan;
import dev.pubsubclickhouse.backfill.source.BigQueryRetry;
import dev.pubsubclickhouse.backfill.source.ClientPageReader;
import dev.pubsubclickhouse.backfill.source.PageReader;
import dev.pubsubclickhouse.backfill.source.PlanChangedException;
import dev.pubsubclickhouse.backfill.source.ReadStreamUnit;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import dev.pubsubclickhouse.backfill.source.RestPageReader;
import dev.pubsubclickhouse.backfill.source.RowRange;
import dev.pubsubclickhouse.backfill.source.Source;
import dev.pubsubclickhouse.backfill.source.SourceResolver;
import dev.pubsubclickhouse.backfill.source.SourceResolver.QuerySpec;
import dev.pubsubclickhouse.backfill.source.SourceResolver.TableFacts;
import dev.pubsubclickhouse.backfill.source.StorageReads;
import dev.pubsubclickhouse.backfill.source.TableRange;
import dev.pubsubclickhouse.backfill.source.TableSpec;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Pins what an execution reads, once, for all of its tasks, and gives this task its share.
 *
 * <ul>
 *   <li>REST: the source is read through one query per execution ({@code FOR SYSTEM_TIME AS OF} the
 *       snapshot time, for a table); the first task's query job pins the time, every task reads its
 *       row range of the job's result table, ranges computed from that table's row count.
 *   <li>Storage Read API: one read session per execution at the snapshot time, settled in the plan
 *       table (first writer wins); stream j belongs to task j mod n.
 * </ul>
 *
 * A task started with other parameters than the execution's plan fails ({@link
 * PlanChangedException}).
 */
final class ExecutionPlanner {
  private final BackfillConfig config;
  private final SourceResolver resolver;
  private final BigQuery bigQuery;
  private final Optional<PlanStore> plans;
  private final StorageReads storage;
  private final BigQueryRetry retry;
  private final Clock clock;

  /**
   * @param plans where the Storage Read API session is settled; empty for a lone task
   * @param storage the Storage Read API, or null when reading through REST
   */
  ExecutionPlanner(
      BackfillConfig config,
      SourceResolver resolver,
      BigQuery bigQuery,
      Optional<PlanStore> plans,
      StorageReads storage,
      BigQueryRetry retry,
      Clock clock) {
    this.config = config;
    this.resolver = resolver;
    this.bigQuery = bigQuery;
    this.plans = plans;
    this.storage = storage;
    this.retry = retry;
    this.clock = clock;
  }

  TaskPlan plan() throws Exception {
    return config.read().reader() == PageReaderKind.STORAGE ? storagePlan() : restPlan();
  }

  /** What the execution was asked to do; every task of it must have been asked the same. */
  String planKey() {
    return String.join(
        "\n",
        config.query().map(q -> "query:" + q).orElse(""),
        config.inputTable().map(TableSpec::format).orElse(""),
        config.read().rowRestriction().orElse(""),
        config.read().reader().name(),
        config.clickHouse().table().toString(),
        Integer.toString(config.taskCount()),
        Integer.toString(config.read().streamsPerTask()));
  }

  private TaskPlan restPlan() throws Exception {
    Source source = restSource();
    RowRange range = RowRange.forTask(source.totalRows(), config.taskIndex(), config.taskCount());
    PageReader reader =
        config.read().reader() == PageReaderKind.CLIENT
            ? new ClientPageReader(bigQuery, source.schema())
            : new RestPageReader(bigQuery.getOptions(), source.schema(), retry);
    ReadUnit unit =
        new TableRange(
            reader, source.table(), range, config.read().pageRows(), source.fingerprint());
    return new TaskPlan(
        source.description(),
        source.schema(),
        source.snapshotTime(),
        List.of(unit),
        source.totalRows());
  }

  private Source restSource() throws InterruptedException {
    if (config.query().isPresent()) {
      return resolver.query(querySpec(), config.executionId(), planKey());
    }
    TableFacts table = resolver.describe(config.inputTable().orElseThrow());
    return resolver.snapshot(
        table, proposedSnapshot(), config.read().rowRestriction(), config.executionId(), planKey());
  }

  private TaskPlan storagePlan() throws Exception {
    TableId readTable;
    Schema schema;
    Optional<Instant> snapshot;
    Optional<String> restriction = config.read().rowRestriction();
    String description;
    if (config.query().isPresent()) {
      Source result = resolver.query(querySpec(), config.executionId(), planKey());
      readTable = result.table();
      schema = result.schema();
      snapshot = Optional.empty();
      description = result.description();
    } else {
      TableFacts table = resolver.describe(config.inputTable().orElseThrow());
      if (table.readableAsTable()) {
        readTable = table.table();
        schema = table.schema();
        snapshot = Optional.of(proposedSnapshot());
        description = TableSpec.format(readTable);
      } else {
        // A view: the Storage Read API reads tables, so the view is queried once.
        Source result =
            resolver.snapshot(
                table, proposedSnapshot(), restriction, config.executionId(), planKey());
        readTable = result.table();
        schema = result.schema();
        snapshot = Optional.empty();
        restriction = Optional.empty();
        description = result.description();
      }
    }
    TableId sessionTable = readTable;
    Optional<String> sessionRestriction = restriction;
    String settled =
        settle(
            () ->
                sessionJson(
                    storage.create(
                        config.project(),
                        sessionTable,
                        snapshot,
                        sessionRestriction,
                        config.taskCount() * config.read().streamsPerTask()),
                    snapshot));
    JsonNode session = JsonPayloads.mapper().readTree(settled);
    if (!planKey().equals(session.path("plan").asText())) {
      throw new PlanChangedException(
          "execution "
              + config.executionId()
              + " pinned a read session for other parameters than this task's: source,"
              + " condition, target or task count differ; run a new execution instead of"
              + " changing a running one");
    }
    List<ReadUnit> units = new ArrayList<>();
    JsonNode streams = session.path("streams");
    String name = session.path("session").asText();
    for (int j = config.taskIndex(); j < streams.size(); j += config.taskCount()) {
      units.add(
          new ReadStreamUnit(
              storage.client(),
              streams.get(j).asText(),
              session.path("avroSchema").asText(),
              config.read().pageRows(),
              retry,
              "storage:" + name + "#" + j));
    }
    Optional<Instant> pinned =
        session.hasNonNull("snapshotTime")
            ? Optional.of(Instant.parse(session.get("snapshotTime").asText()))
            : Optional.empty();
    String shown =
        description
            + pinned.map(t -> " as of " + t).orElse("")
            + sessionRestriction.map(w -> " where " + w).orElse("");
    return new TaskPlan(shown, schema, pinned, units, session.path("estimatedRows").asLong(-1));
  }

  private String settle(PlanStore.Proposal proposal) throws Exception {
    if (plans.isEmpty()) {
      return proposal.make();
    }
    return plans.get().settle(config.executionId(), "read-session", proposal);
  }

  private String sessionJson(StorageReads.Session session, Optional<Instant> snapshot) {
    ObjectNode json = JsonPayloads.mapper().createObjectNode();
    json.put("plan", planKey());
    json.put("session", session.name());
    snapshot.ifPresent(t -> json.put("snapshotTime", t.toString()));
    json.put("estimatedRows", session.estimatedRows());
    json.put("avroSchema", session.avroSchema());
    session.streams().forEach(json.withArray("streams")::add);
    return json.toString();
  }

  /** Now, to the millisecond: BigQuery's time travel has millisecond precision. */
  private Instant proposedSnapshot() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  private QuerySpec querySpec() {
    return new QuerySpec(
        config.query().orElseThrow(),
        config.useLegacySql(),
        config.queryLocation(),
        config.queryTempDataset(),
        config.kmsKey());
  }
}
