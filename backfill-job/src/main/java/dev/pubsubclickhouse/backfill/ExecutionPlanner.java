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
import dev.pubsubclickhouse.backfill.source.SourceException;
import dev.pubsubclickhouse.backfill.source.SourceResolver;
import dev.pubsubclickhouse.backfill.source.SourceResolver.TableFacts;
import dev.pubsubclickhouse.backfill.source.StorageReads;
import dev.pubsubclickhouse.backfill.source.TableRange;
import dev.pubsubclickhouse.backfill.source.TableSpec;
import dev.pubsubclickhouse.backfill.write.Checkpoints;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Pins what an execution reads, once, for all of its tasks, and gives this task its share.
 *
 * <ul>
 *   <li>REST: the source is read through one query per execution ({@code FOR SYSTEM_TIME AS OF} the
 *       snapshot time, for a table); the first task's query job pins the time, every task reads its
 *       share of the pages of the job's result table: pages of PAGE_ROWS rows cut from row 0, so
 *       that the same rows form the same page whatever the task count ({@link RowRange#forTask}).
 *   <li>Storage Read API: one read session per execution at the snapshot time, settled in the plan
 *       table (first writer wins); stream j belongs to task j mod n. A table that an earlier
 *       execution read into the same target, unchanged since (same last-modified time and row
 *       count, no streaming buffer), is read through that execution's session instead: its
 *       positions, and so its checkpoints, hold; a new session would split the table anew.
 * </ul>
 *
 * A task started with other parameters than the execution's plan fails ({@link
 * PlanChangedException}).
 */
final class ExecutionPlanner {
  /** Prefixes the origins of what the Storage Read API reads (REST's units are other rows). */
  private static final String STORAGE = "storage|";

  private static final String READ_SESSION = "read-session";

  /** How long a read session must still live for a new execution to read on from it. */
  private static final Duration SESSION_TIME_LEFT = Duration.ofMinutes(15);

  private final BackfillConfig config;
  private final SourceResolver resolver;
  private final BigQuery bigQuery;
  private final Optional<PlanStore> plans;
  private final Optional<Checkpoints> checkpoints;
  private final StorageReads storage;
  private final BigQueryRetry retry;
  private final Clock clock;

  /**
   * @param plans where the Storage Read API session is settled; empty for a lone task
   * @param checkpoints what earlier executions wrote; empty without a checkpoint table
   * @param storage the Storage Read API, or null when reading through REST
   */
  ExecutionPlanner(
      BackfillConfig config,
      SourceResolver resolver,
      BigQuery bigQuery,
      Optional<PlanStore> plans,
      Optional<Checkpoints> checkpoints,
      StorageReads storage,
      BigQueryRetry retry,
      Clock clock) {
    this.config = config;
    this.resolver = resolver;
    this.bigQuery = bigQuery;
    this.plans = plans;
    this.checkpoints = checkpoints;
    this.storage = storage;
    this.retry = retry;
    this.clock = clock;
  }

  TaskPlan plan() throws Exception {
    return config.read().reader() == PageReaderKind.STORAGE ? storagePlan() : restPlan();
  }

  /**
   * What the execution was asked to do; every task of it must have been asked the same. The task
   * count and the page size are here because they cut the execution's shares (REST: of its pages,
   * Storage Read API: of its streams), which its tasks must agree on; another execution may differ.
   */
  String planKey() {
    return String.join(
        "\n",
        config.query().map(q -> "query:" + q).orElse(""),
        config.inputTable().map(TableSpec::format).orElse(""),
        config.read().rowRestriction().orElse(""),
        config.read().reader().name(),
        config.clickHouse().table().toString(),
        Integer.toString(config.taskCount()),
        Integer.toString(config.read().streamsPerTask()),
        Integer.toString(config.read().pageRows()));
  }

  private TaskPlan restPlan() throws Exception {
    Source source = restSource();
    RowRange range =
        RowRange.forTask(
            source.totalRows(), config.read().pageRows(), config.taskIndex(), config.taskCount());
    PageReader reader =
        config.read().reader() == PageReaderKind.CLIENT
            ? new ClientPageReader(bigQuery, source.schema())
            : new RestPageReader(bigQuery.getOptions(), source.schema(), retry);
    ReadUnit unit =
        new TableRange(
            reader, source.table(), range, config.read().pageRows(), source.fingerprint());
    return TaskPlan.builder()
        .description(source.description())
        .schema(source.schema())
        .snapshotTime(source.snapshotTime())
        .units(List.of(unit))
        .sourceRows(source.totalRows())
        .origin(source.fingerprint())
        .build();
  }

  private Source restSource() throws InterruptedException {
    if (config.query().isPresent()) {
      return resolver.query(config.querySpec(), config.executionId(), planKey());
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
    String origin;
    // A table read as itself may have been read by an earlier execution, unchanged since.
    Optional<TableFacts> table = Optional.empty();
    if (config.query().isPresent()) {
      Source result = resolver.query(config.querySpec(), config.executionId(), planKey());
      readTable = result.table();
      schema = result.schema();
      snapshot = Optional.empty();
      description = result.description();
      origin = STORAGE + result.fingerprint();
    } else {
      TableFacts facts = resolver.describe(config.inputTable().orElseThrow());
      if (facts.readableAsTable()) {
        readTable = facts.table();
        schema = facts.schema();
        snapshot = Optional.of(proposedSnapshot());
        description = TableSpec.format(readTable);
        origin = STORAGE + facts.version() + restriction.map(w -> "|" + w).orElse("");
        table = Optional.of(facts);
      } else {
        // A view: the Storage Read API reads tables, so the view is queried once.
        Source result =
            resolver.snapshot(
                facts, proposedSnapshot(), restriction, config.executionId(), planKey());
        readTable = result.table();
        schema = result.schema();
        snapshot = Optional.empty();
        restriction = Optional.empty();
        description = result.description();
        origin = STORAGE + result.fingerprint();
      }
    }
    TableId sessionTable = readTable;
    Optional<String> sessionRestriction = restriction;
    Optional<TableFacts> unchangedCandidate = table;
    String settled =
        settle(
            () ->
                proposeSession(
                    sessionTable, snapshot, sessionRestriction, origin, unchangedCandidate));
    JsonNode session = JsonPayloads.mapper().readTree(settled);
    if (!planKey().equals(session.path("plan").asText())) {
      throw new PlanChangedException(
          "execution "
              + config.executionId()
              + " pinned a read session for other parameters than this task's: source,"
              + " condition, target, task count or page size differ; run a new execution instead"
              + " of changing a running one");
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
              streamKey(name, j)));
    }
    Optional<Instant> pinned =
        session.hasNonNull("snapshotTime")
            ? Optional.of(Instant.parse(session.get("snapshotTime").asText()))
            : Optional.empty();
    String shown =
        description
            + pinned.map(t -> " as of " + t).orElse("")
            + sessionRestriction.map(w -> " where " + w).orElse("");
    List<String> warnings = new ArrayList<>();
    session.path("warnings").forEach(w -> warnings.add(w.asText()));
    return TaskPlan.builder()
        .description(shown)
        .schema(schema)
        .snapshotTime(pinned)
        .units(units)
        .sourceRows(session.path("estimatedRows").asLong(-1))
        .origin(session.path("origin").asText())
        .readSessionOf(Optional.ofNullable(session.path("readSessionOf").textValue()))
        .warnings(warnings)
        .build();
  }

  /** Names stream j of a read session in the checkpoints. */
  static String streamKey(String session, int j) {
    return "storage:" + session + "#" + j;
  }

  /**
   * The read session this execution proposes: an earlier execution's, when it read the same
   * unchanged table into the same target (its streams' positions hold, so its checkpoints do), else
   * a new one.
   *
   * @param table the table, when read as itself
   */
  private String proposeSession(
      TableId readTable,
      Optional<Instant> snapshot,
      Optional<String> restriction,
      String origin,
      Optional<TableFacts> table)
      throws Exception {
    List<String> warnings = new ArrayList<>();
    boolean streaming = table.isPresent() && table.get().streaming();
    if (table.isPresent() && plans.isPresent() && checkpoints.isPresent()) {
      Optional<PlanStore.Settled> earlier =
          plans.get().latestOfOthers(READ_SESSION, config.executionId(), origin, target());
      if (earlier.isPresent() && !streaming) {
        return readOn(
            (ObjectNode) JsonPayloads.mapper().readTree(earlier.get().value()),
            earlier.get().execution(),
            origin);
      }
      if (earlier.isPresent()) {
        warnings.add(
            TableSpec.format(readTable)
                + " has rows in its streaming buffer, so it cannot be known unchanged since"
                + " execution "
                + earlier.get().execution()
                + " wrote it into "
                + target()
                + ": this execution reads all of it again (for new rows only, use"
                + " ROW_RESTRICTION)");
      }
    }
    StorageReads.Session created =
        storage.create(
            config.project(),
            readTable,
            snapshot,
            restriction,
            config.taskCount() * config.read().streamsPerTask());
    // A table with rows in its streaming buffer may have changed though its last-modified time
    // did not: it is never taken as unchanged, so this session's rows are its own.
    String sessionOrigin = streaming ? STORAGE + "session:" + created.name() : origin;
    return sessionJson(created, snapshot, sessionOrigin, warnings);
  }

  /**
   * An earlier execution's read session of the same unchanged source, proposed for this one: its
   * finished streams are not read again, the others go on after their recorded pages. A session
   * that expires before the rest could be read is refused: a new session would split the table
   * anew, and the rows already written could not be told apart.
   */
  private String readOn(ObjectNode session, String execution, String origin) {
    String name = session.path("session").asText();
    Set<String> finished = checkpoints.orElseThrow().finishedUnits(origin);
    boolean complete = true;
    for (int j = 0; j < session.path("streams").size(); j++) {
      complete &= finished.contains(streamKey(name, j));
    }
    Optional<Instant> expires =
        session.hasNonNull("expireTime")
            ? Optional.of(Instant.parse(session.get("expireTime").asText()))
            : Optional.empty();
    if (!complete
        && (expires.isEmpty() || expires.get().isBefore(clock.instant().plus(SESSION_TIME_LEFT)))) {
      throw new SourceException(
          "execution "
              + execution
              + " wrote only part of "
              + config.sourceDescription()
              + " into "
              + target()
              + ", and its read session "
              + expires
                  .map(t -> (t.isBefore(clock.instant()) ? "expired at " : "expires at ") + t)
                  .orElse("has no expiry time")
              + ", too soon to read the rest from it; a new session would split the table anew"
              + " and write again what it wrote. Read the rest with ROW_RESTRICTION, or remove"
              + " its rows from the target (or let a ReplacingMergeTree collapse them) and then"
              + " its plan: DELETE FROM "
              + plans.orElseThrow().table()
              + " WHERE JSONExtractString(value, 'session') = '"
              + name
              + "'");
    }
    ObjectNode json = session.deepCopy();
    json.put("plan", planKey());
    json.put("readSessionOf", execution);
    json.remove("warnings");
    return json.toString();
  }

  private String settle(PlanStore.Proposal proposal) throws Exception {
    if (plans.isEmpty()) {
      return proposal.make();
    }
    return plans.get().settle(config.executionId(), READ_SESSION, proposal);
  }

  private String sessionJson(
      StorageReads.Session session,
      Optional<Instant> snapshot,
      String origin,
      List<String> warnings) {
    ObjectNode json = JsonPayloads.mapper().createObjectNode();
    json.put("plan", planKey());
    json.put("origin", origin);
    json.put("target", target());
    json.put("session", session.name());
    snapshot.ifPresent(t -> json.put("snapshotTime", t.toString()));
    session.expireTime().ifPresent(t -> json.put("expireTime", t.toString()));
    json.put("estimatedRows", session.estimatedRows());
    json.put("avroSchema", session.avroSchema());
    session.streams().forEach(json.withArray("streams")::add);
    warnings.forEach(json.withArray("warnings")::add);
    return json.toString();
  }

  private String target() {
    return config.clickHouse().table().toString();
  }

  /** Now, to the millisecond: BigQuery's time travel has millisecond precision. */
  private Instant proposedSnapshot() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }
}
