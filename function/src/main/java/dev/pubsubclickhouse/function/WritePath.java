package dev.pubsubclickhouse.function;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseHttpException;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import dev.pubsubclickhouse.core.write.DeadLetterTable;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.function.envelope.PayloadDecompressor;
import dev.pubsubclickhouse.function.flow.FlowControl;
import dev.pubsubclickhouse.function.flow.FlowGate;
import dev.pubsubclickhouse.function.flow.TableLoadReader;
import dev.pubsubclickhouse.function.ingest.AnswerDeadlines;
import dev.pubsubclickhouse.function.ingest.BatchWriter;
import dev.pubsubclickhouse.function.ingest.GroupCommitBatcher;
import dev.pubsubclickhouse.function.ingest.Ingestor;
import dev.pubsubclickhouse.function.ingest.MessageEncoder;
import dev.pubsubclickhouse.function.observability.Metrics;
import dev.pubsubclickhouse.function.observability.PushWriteEvents;
import dev.pubsubclickhouse.function.sinks.DeadLetterTopic;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What a message travels through once ClickHouse answers: the target table's schema, the INSERT
 * format the server reads, the dead-letter sinks, the batcher and the ingestor in front of it, and
 * (with flow control) the gate that watches the table's parts on a thread of its own.
 */
record WritePath(
    TargetTable table,
    ClickHouseInserter inserter,
    List<DeadLetterSink> sinks,
    GroupCommitBatcher batcher,
    Ingestor ingestor,
    Optional<ScheduledExecutorService> tableWatch) {

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
      Metrics metrics,
      AnswerDeadlines deadlines) {
    TargetTable table = new TargetTable(config.clickHouse().table(), new SchemaReader(client));
    ClickHouseInserter inserter =
        new ClickHouseInserter(
            http, InsertFormat.supportedBy(client), config.clickHouse().insertOptions());
    checkPassedSettings(inserter);
    List<DeadLetterSink> sinks = new ArrayList<>();
    if (config.clickHouse().deadLetterTable().isPresent()) {
      sinks.add(
          DeadLetterTable.open(
              client,
              config.clickHouse().deadLetterTable().get(),
              config.clickHouse().createDeadLetterTable(),
              inserter));
    }
    if (topicSink != null) {
      sinks.add(topicSink);
    }
    MessageEncoder encoder =
        new MessageEncoder(
            new PayloadDecompressor(config.maxDecompressedBytes()), metrics, Clock.systemUTC());
    TableWriter writer =
        new TableWriter(
            table, inserter, sinks, new PushWriteEvents(metrics, table.name()), "pubsub");
    BatchWriter batchWriter = new BatchWriter(writer);
    if (!config.flow().enabled()) {
      GroupCommitBatcher batcher = new GroupCommitBatcher(config.batch(), batchWriter);
      Ingestor ingestor = new Ingestor(table, encoder, batcher, deadlines, metrics, () -> true);
      return new WritePath(
          table, inserter, List.copyOf(sinks), batcher, ingestor, Optional.empty());
    }
    FlowControl control =
        new FlowControl(
            config.batch().maxInsertsPerSecond(),
            config.flow().tableMaxInsertsPerSecond(),
            Math.min(MAX_PACE.toNanos(), config.batch().answerTimeout().toNanos() / 2));
    TableLoadReader reader = new TableLoadReader(client, config.clickHouse().table());
    FlowGate gate = new FlowGate(control, reader::read, batchWriter, metrics, config.flow());
    GroupCommitBatcher batcher = new GroupCommitBatcher(config.batch(), gate::paceNanos, gate);
    gate.whenPaceFalls(batcher::wake);
    Ingestor ingestor = new Ingestor(table, encoder, batcher, deadlines, metrics, gate::admits);
    // Its own thread: a query that hangs must not hold up the answer deadlines.
    ScheduledExecutorService tableWatch =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "table-watch");
              thread.setDaemon(true);
              return thread;
            });
    gate.start(tableWatch);
    return new WritePath(
        table, inserter, List.copyOf(sinks), batcher, ingestor, Optional.of(tableWatch));
  }

  /** Stops watching the table (at shutdown). */
  void stopWatching() {
    tableWatch.ifPresent(ScheduledExecutorService::shutdownNow);
  }

  /** A CLICKHOUSE_SETTINGS name or value ClickHouse refuses is named with the variable. */
  private static void checkPassedSettings(ClickHouseInserter inserter) {
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
