package dev.pubsubclickhouse.function;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.evolve.ColumnAdder;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseHttpException;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import dev.pubsubclickhouse.core.write.DeadLetterTable;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.function.flow.FlowControl;
import dev.pubsubclickhouse.function.flow.FlowGate;
import dev.pubsubclickhouse.function.flow.TableGates;
import dev.pubsubclickhouse.function.flow.TableLoadReader;
import dev.pubsubclickhouse.function.ingest.AnswerDeadlines;
import dev.pubsubclickhouse.function.ingest.BatchWriter;
import dev.pubsubclickhouse.function.ingest.GroupCommitBatcher;
import dev.pubsubclickhouse.function.ingest.Ingestor;
import dev.pubsubclickhouse.function.observability.Metrics;
import dev.pubsubclickhouse.function.observability.PushEvolutionEvents;
import dev.pubsubclickhouse.function.observability.PushMessageEvents;
import dev.pubsubclickhouse.function.observability.PushWriteEvents;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.cdc.ChangeReading;
import dev.pubsubclickhouse.messages.cdc.ChangeRow;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import dev.pubsubclickhouse.messages.payload.SchemaService;
import dev.pubsubclickhouse.messages.sinks.DeadLetterTopic;
import dev.pubsubclickhouse.messages.tables.Destinations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What a message travels through once ClickHouse answers: the tables it may go to (their schemas
 * and writers), the INSERT format the server reads, the dead-letter sinks, the batcher and the
 * ingestor in front of it, and (with flow control) the gates that watch each table's parts on a
 * thread of their own.
 */
record WritePath(
    TargetTable table,
    ClickHouseInserter inserter,
    List<DeadLetterSink> sinks,
    GroupCommitBatcher batcher,
    Ingestor ingestor,
    Optional<TableWatch> tableWatch) {
  /**
   * Flow control's part: the gates of each table and the thread that reads their parts, which exist
   * together or not at all.
   */
  record TableWatch(TableGates gates, ScheduledExecutorService thread) {}

  /** How long the service waits for one ALTER of schema evolution. */
  private static final Duration DDL_TIMEOUT = Duration.ofSeconds(60);

  /** Flow control never spaces INSERTs further apart than this. */
  private static final Duration MAX_PACE = Duration.ofSeconds(10);

  /**
   * Reads the target table, asks the server which INSERT format it reads and whether it takes the
   * settings passed through, checks (or creates) the dead-letter table, and starts the batcher.
   *
   * @throws RuntimeException when ClickHouse or a table does not answer as needed; a {@link
   *     ConfigurationException} naming CLICKHOUSE_SETTINGS when ClickHouse refuses one of them
   */
  static WritePath open(
      PushConfig config,
      Client client,
      ClickHouseHttp http,
      DeadLetterTopic topicSink,
      SchemaService schemas,
      Metrics metrics,
      AnswerDeadlines deadlines) {
    SchemaReader reader = new SchemaReader(client);
    // The default table first: of what a user sets up, it is what the service needs first.
    TargetTable defaultTable =
        new TargetTable(config.clickHouse().table(), reader, config.tables().columnSources());
    ClickHouseInserter inserter =
        new ClickHouseInserter(
            http, InsertFormat.supportedBy(client), config.clickHouse().insertOptions());
    checkPassedNamesAreSettings(client, config.clickHouse().insertOptions().extraSettings());
    checkPassedSettings(inserter);
    List<DeadLetterSink> sinks = new ArrayList<>();
    DeadLetterTable.configured(client, config.clickHouse(), inserter).ifPresent(sinks::add);
    if (topicSink != null) {
      sinks.add(topicSink);
    }
    PayloadDecompressor decompressor = new PayloadDecompressor(config.maxDecompressedBytes());
    PushMessageEvents messageEvents = new PushMessageEvents(metrics);
    Optional<ChangeReading> changes =
        config
            .tables()
            .changeCapture()
            .map(capture -> ChangeReading.open(capture, decompressor, client, messageEvents));
    Destinations destinations =
        Destinations.open(
            config.tables(),
            reader,
            defaultTable,
            inserter,
            sinks,
            true,
            table -> new PushWriteEvents(metrics, table),
            changes.map(ChangeReading::router).orElse(null));
    PayloadFormats formats = new PayloadFormats(schemas, config.schemaLookups(), messageEvents);
    MessageEncoder encoder =
        new MessageEncoder(
            decompressor,
            changes.map(reading -> formats.readingEveryMessageAs(reading.format())).orElse(formats),
            columnAdder(config, client, metrics),
            config.tables().unknownFieldsColumn().orElse(null),
            messageEvents,
            Clock.systemUTC());
    TargetTable table = destinations.defaultDestination().table();
    BatchWriter batchWriter = new BatchWriter();
    if (!config.flow().enabled()) {
      GroupCommitBatcher batcher = new GroupCommitBatcher(config.batch(), batchWriter);
      Ingestor ingestor =
          new Ingestor(destinations, encoder, batcher, deadlines, metrics, any -> true);
      return new WritePath(
          table, inserter, List.copyOf(sinks), batcher, ingestor, Optional.empty());
    }
    // Its own thread: a query that hangs must not hold up the answer deadlines.
    ScheduledExecutorService tableWatch =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "table-watch");
              thread.setDaemon(true);
              return thread;
            });
    long maxPace = Math.min(MAX_PACE.toNanos(), config.batch().answerTimeout().toNanos() / 2);
    TableGates gates =
        new TableGates(
            config.clickHouse().table(),
            watched ->
                new FlowGate(
                    watched,
                    new FlowControl(
                        config.batch().maxInsertsPerSecond(),
                        config.flow().tableMaxInsertsPerSecond(),
                        maxPace),
                    new TableLoadReader(client, watched)::read,
                    metrics,
                    config.flow()),
            tableWatch,
            batchWriter,
            metrics);
    GroupCommitBatcher batcher =
        new GroupCommitBatcher(
            config.batch(), gates::paceNanos, !config.tables().allowedTables().isEmpty(), gates);
    gates.whenPaceFalls(batcher::wake);
    Ingestor ingestor =
        new Ingestor(destinations, encoder, batcher, deadlines, metrics, gates::admits);
    return new WritePath(
        table,
        inserter,
        List.copyOf(sinks),
        batcher,
        ingestor,
        Optional.of(new TableWatch(gates, tableWatch)));
  }

  /**
   * Empty while the path can write as configured; else why not: a batch flusher or the table watch
   * stopped (an Error such as OutOfMemoryError), which only a new instance cures.
   */
  Optional<String> deathCause() {
    Optional<String> flusher =
        batcher.flusherDeath().map(e -> "batch flusher stopped: " + e.getClass().getSimpleName());
    if (flusher.isPresent()) {
      return flusher;
    }
    return tableWatch
        .flatMap(watch -> watch.gates().watchDeath())
        .map(e -> "table watch stopped: " + e.getClass().getSimpleName());
  }

  /**
   * Ends its threads, the table watch and the batch flushers, without waiting: at shutdown once the
   * batcher is drained, or for a path that opened after shutdown began and never held a message.
   */
  void stop() {
    tableWatch.ifPresent(watch -> watch.thread().shutdownNow());
    batcher.stopFlushers();
  }

  /** Adds columns for new fields when SCHEMA_EVOLUTION=add_columns; null when it is off. */
  private static ColumnAdder columnAdder(PushConfig config, Client client, Metrics metrics) {
    return config
        .tables()
        .evolution()
        .map(
            policy ->
                new ColumnAdder(
                    policy,
                    serviceColumns(config),
                    sql ->
                        client.execute(sql).get(DDL_TIMEOUT.toSeconds(), TimeUnit.SECONDS).close(),
                    new PushEvolutionEvents(metrics)))
        .orElse(null);
  }

  /** The columns the service fills itself, which no new field may become. */
  private static Set<String> serviceColumns(PushConfig config) {
    Set<String> columns = new HashSet<>(MessageEncoder.METADATA_COLUMNS);
    if (config.tables().changeCapture().isPresent()) {
      columns.addAll(ChangeRow.METADATA_COLUMNS);
    }
    config.tables().unknownFieldsColumn().ifPresent(columns::add);
    return columns;
  }

  /**
   * Every CLICKHOUSE_SETTINGS name must be one the server lists in system.settings: the HTTP
   * interface reads some other names from the URL as something else (the statement, the user, a
   * query parameter), and the names refused at start are only those known when this was written.
   * All such names are said at once, where ClickHouse's own refusal names the first.
   */
  static void checkPassedNamesAreSettings(Client client, Map<String, String> passed) {
    if (passed.isEmpty()) {
      return;
    }
    Set<String> settings = new HashSet<>();
    for (GenericRecord row : client.queryAll("SELECT name FROM system.settings")) {
      settings.add(row.getString("name"));
    }
    List<String> unknown =
        passed.keySet().stream().filter(name -> !settings.contains(name)).sorted().toList();
    if (!unknown.isEmpty()) {
      throw new ConfigurationException(
          ClickHouseParameters.SETTINGS,
          String.join(", ", unknown)
              + (unknown.size() == 1 ? " is" : " are")
              + " not in its system.settings: only settings may be passed through");
    }
  }

  /** A CLICKHOUSE_SETTINGS name or value ClickHouse refuses is named with the variable. */
  static void checkPassedSettings(ClickHouseInserter inserter) {
    try {
      inserter.checkPassedSettings();
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(ClickHouseParameters.SETTINGS, e.getMessage());
    } catch (IOException | ClickHouseHttpException e) {
      throw new UncheckedIOException(new IOException(ClickHouseFailures.describe(e), e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking ClickHouse", e);
    }
  }

  /** The fields of the log line that says the service is ready. */
  Map<String, Object> describe(PushConfig config) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("clickhouse", config.clickHouse().url().toString());
    fields.put("table", table.name().toString());
    config.tables().tableAttribute().ifPresent(a -> fields.put("tableAttribute", a));
    if (!config.tables().allowedTables().isEmpty()) {
      fields.put("tables", config.tables().allowedTables().stream().map(Object::toString).toList());
    }
    fields.put("schemaEvolution", config.tables().evolution().isPresent() ? "add_columns" : "off");
    config.tables().unknownFieldsColumn().ifPresent(c -> fields.put("unknownFieldsColumn", c));
    config
        .tables()
        .changeCapture()
        .ifPresent(
            c -> {
              fields.put("cdcTables", c.tables().toString());
              fields.put("cdcTruncateMarksTable", c.marksTable().toString());
            });
    fields.put("deadLetterSinks", sinks.stream().map(DeadLetterSink::name).toList());
    fields.put("insertFormat", inserter.format().clickHouseName());
    fields.put("batchMaxRows", config.batch().maxRows());
    fields.put("batchMaxWaitMs", config.batch().maxWait().toMillis());
    fields.put("asyncInsert", config.clickHouse().insertOptions().asyncInsert());
    fields.put("tableMaxInsertsPerSecond", config.flow().tableMaxInsertsPerSecond());
    fields.put("tableWatchIntervalMs", config.flow().watchInterval().toMillis());
    return fields;
  }
}
