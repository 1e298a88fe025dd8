package dev.pubsubclickhouse.function.flow;

import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.function.ingest.PendingMessage;
import dev.pubsubclickhouse.function.ingest.PushOutcome;
import dev.pubsubclickhouse.function.observability.Metrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Flow control for every table the service writes. It sits between the batcher and ClickHouse and
 * holds one {@link FlowGate} per table. The default table is read before the first message. Any
 * other table is read from the first message that names it. A message is refused (429) only while
 * its own table is near its limit. Each table's messages go at that table's pace, since the batcher
 * keeps a queue per table. A refusing table's messages are not held back by a pace, since they are
 * not sent.
 */
public final class TableGates implements Consumer<List<PendingMessage>> {
  private final Function<TableName, FlowGate> newGate;
  private final ScheduledExecutorService watch;
  private final Consumer<List<PendingMessage>> writer;
  private final Map<TableName, FlowGate> gates = new ConcurrentHashMap<>();
  private volatile Runnable paceFell = () -> {};

  /**
   * Starts watching {@code defaultTable}: its first reading is taken before this returns.
   *
   * @param newGate a gate for a table, not yet started
   * @param watch the thread every table's readings run on
   * @param writer writes the messages a batch may send
   */
  public TableGates(
      TableName defaultTable,
      Function<TableName, FlowGate> newGate,
      ScheduledExecutorService watch,
      Consumer<List<PendingMessage>> writer,
      Metrics metrics) {
    this.newGate = newGate;
    this.watch = watch;
    this.writer = writer;
    FlowGate first = newGate.apply(defaultTable);
    first.whenPaceFalls(() -> paceFell.run());
    gates.put(defaultTable, first);
    first.start(watch);
    metrics.gauge(
        "part-pressure-percent",
        "Active parts in the fullest partition of the watched table nearest its limit, as a"
            + " percentage of the count at which ClickHouse slows INSERTs.",
        () -> fullest().map(gate -> Math.round(100 * gate.state().pressure())).orElse(0L));
    metrics.gauge(
        "table-partition-parts",
        "Active parts in the fullest partition of the watched table nearest its limit, as last"
            + " read (-1: not read).",
        () ->
            fullest()
                .map(FlowGate::lastLoad)
                .map(load -> (long) load.partitionParts())
                .orElse(-1L));
    metrics.gauge(
        "table-inserts-per-second",
        "New parts per second in the watched tables from every writer, as last measured.",
        () ->
            Math.round(
                gates.values().stream()
                    .mapToDouble(gate -> Math.max(0, gate.state().tableInsertsPerSecond()))
                    .sum()));
    metrics.gauge(
        "insert-pace-us",
        "The least time between two INSERTs from this instance into the slowest watched table"
            + " that is not refusing, microseconds.",
        () -> gates.keySet().stream().mapToLong(this::paceNanos).max().orElse(0) / 1000);
    metrics.gauge(
        "tables-refusing",
        "Watched tables near their part limit, whose messages are answered 429.",
        () -> gates.values().stream().filter(gate -> gate.state().refusing()).count());
  }

  /** The batcher to wake when a table's pace falls, so that a paced batch need not wait it out. */
  public void whenPaceFalls(Runnable wake) {
    this.paceFell = wake;
  }

  /** False while messages for {@code table} must be refused (429). */
  public boolean admits(TableName table) {
    return gate(table).admits();
  }

  /**
   * The least time between the starts of two INSERTs with messages for {@code table} now: 0 for a
   * refusing table (its messages are answered 429, not sent) or one not watched yet.
   */
  public long paceNanos(TableName table) {
    FlowGate gate = table == null ? null : gates.get(table);
    FlowControl.State state = gate == null ? null : gate.state();
    return state == null || state.refusing() ? 0 : state.paceNanos();
  }

  /**
   * Empty while every table is watched; else what stopped a watch: flow control is off for that
   * table for good, and the liveness probe should say so.
   */
  public Optional<Throwable> watchDeath() {
    return gates.values().stream().flatMap(gate -> gate.watchDeath().stream()).findFirst();
  }

  /**
   * Writes what the batch's table lets through (the batcher's batches hold one table's messages
   * each; the gate reads the table first when it is under pressure or not read yet). A message
   * already answered (503, its deadline passed while it waited) is neither counted nor written; one
   * answered during the reading is counted with its batch but not written ({@link
   * dev.pubsubclickhouse.function.ingest.BatchWriter} leaves it out).
   */
  @Override
  public void accept(List<PendingMessage> batch) {
    try {
      for (Map.Entry<TableName, List<PendingMessage>> table : byTable(batch).entrySet()) {
        if (gate(table.getKey()).letThrough(table.getValue())) {
          write(table.getValue());
        }
      }
    } finally {
      // A no-op for answered messages; 503 for any the gates or the writer left unanswered.
      batch.forEach(message -> message.answer().complete(PushOutcome.UNAVAILABLE));
    }
  }

  /** Writes the messages, if any; a writer that throws leaves them 503, not the batch's others. */
  private void write(List<PendingMessage> messages) {
    if (messages.isEmpty()) {
      return;
    }
    try {
      writer.accept(messages);
    } catch (RuntimeException e) {
      JsonLog.error("batch writer failed", Map.of("messages", messages.size()), e);
      messages.forEach(message -> message.answer().complete(PushOutcome.UNAVAILABLE));
    }
  }

  private FlowGate gate(TableName table) {
    FlowGate gate = gates.get(table);
    if (gate != null) {
      return gate;
    }
    FlowGate created = newGate.apply(table);
    created.whenPaceFalls(() -> paceFell.run());
    FlowGate raced = gates.putIfAbsent(table, created);
    if (raced != null) {
      return raced;
    }
    created.startLater(watch);
    return created;
  }

  private Optional<FlowGate> fullest() {
    return gates.values().stream().max(Comparator.comparingDouble(gate -> gate.state().pressure()));
  }

  /**
   * The batch's messages not answered yet by the table they go to, each table's in the batch's
   * order.
   */
  private static Map<TableName, List<PendingMessage>> byTable(List<PendingMessage> batch) {
    Map<TableName, List<PendingMessage>> tables = new LinkedHashMap<>(4);
    for (PendingMessage message : batch) {
      if (!message.answer().isDone()) {
        tables.computeIfAbsent(message.table(), table -> new ArrayList<>()).add(message);
      }
    }
    return tables;
  }
}
