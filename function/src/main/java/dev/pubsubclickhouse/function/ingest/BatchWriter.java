package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.FailureKind;
import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.function.observability.JsonLog;
import dev.pubsubclickhouse.function.observability.Metrics;
import dev.pubsubclickhouse.function.sinks.ErrorSink;
import dev.pubsubclickhouse.function.sinks.FailedMessage;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Writes one batch and answers each of its messages:
 *
 * <ol>
 *   <li>one INSERT of every row; if ClickHouse refuses the data, the batch is split in halves until
 *       only the guilty rows are left, and those become failures;
 *   <li>if the table changed, its schema is read again, the batch encoded again and sent once more;
 *   <li>the failures go to the error sinks (one write per sink);
 *   <li>a message is acknowledged when all its rows are in the table or the sinks; otherwise it is
 *       answered 503 and Pub/Sub redelivers it.
 * </ol>
 */
public final class BatchWriter implements Consumer<List<PendingMessage>> {
  private final TargetTable table;
  private final ClickHouseInserter inserter;
  private final MessageEncoder encoder;
  private final List<ErrorSink> sinks;
  private final Metrics metrics;

  public BatchWriter(
      TargetTable table,
      ClickHouseInserter inserter,
      MessageEncoder encoder,
      List<ErrorSink> sinks,
      Metrics metrics) {
    this.table = table;
    this.inserter = inserter;
    this.encoder = encoder;
    this.sinks = List.copyOf(sinks);
    this.metrics = metrics;
  }

  /** A message while its batch is written. */
  private static final class Work {
    final PendingMessage pending;
    PendingMessage encoded;
    final List<FailedMessage> failures = new ArrayList<>();
    boolean retryLater;

    Work(PendingMessage pending) {
      this.pending = pending;
      this.encoded = pending;
      failures.addAll(pending.failures());
    }
  }

  /** Row {@code row} of a message. */
  private record RowSlice(Work work, int row) {}

  @Override
  public void accept(List<PendingMessage> batch) {
    List<Work> works = new ArrayList<>(batch.size());
    TargetTable.Snapshot snapshot = table.current();
    boolean anyFailure = false;
    for (PendingMessage message : batch) {
      anyFailure |= !message.failures().isEmpty();
      works.add(new Work(message));
    }
    if (anyFailure) {
      // A value refused by a stale schema may fit the table as it is now: check before blaming it
      // (one system.columns query per batch that holds a refusal).
      snapshot = freshSchema(snapshot);
    }
    for (Work work : works) {
      if (work.encoded.encodedWith() != snapshot) {
        encodeAgain(work, snapshot);
      }
    }
    List<Work> toInsert = works;
    if (sinks.isEmpty()) {
      // Nowhere to keep a failure: such a message is refused whole, none of its rows inserted,
      // so that Pub/Sub's own dead-lettering gets it as it was.
      toInsert = works.stream().filter(work -> work.failures.isEmpty()).toList();
    }
    try {
      insertAll(toInsert, snapshot);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      works.forEach(work -> work.retryLater = true);
    }
    sinkFailures(works);
    answer(works);
  }

  private TargetTable.Snapshot freshSchema(TargetTable.Snapshot snapshot) {
    try {
      return table.refreshIfChanged();
    } catch (RuntimeException e) {
      JsonLog.warning(
          "cannot read the target table's schema", Map.of("error", String.valueOf(e.getMessage())));
      return snapshot;
    }
  }

  private void insertAll(List<Work> works, TargetTable.Snapshot snapshot)
      throws InterruptedException {
    try {
      insertOrSplit(slices(works), snapshot);
    } catch (InsertException e) {
      if (e.kind() != FailureKind.SCHEMA_CHANGED) {
        retryLater(works, e);
        return;
      }
      JsonLog.warning(
          "target table changed; reading its schema again",
          Map.of("table", table.name().toString()));
      TargetTable.Snapshot fresh;
      try {
        fresh = table.refresh();
      } catch (RuntimeException schemaFailure) {
        retryLater(works, e);
        return;
      }
      for (Work work : works) {
        work.failures.clear();
        work.failures.addAll(work.pending.failures());
        encodeAgain(work, fresh);
      }
      try {
        insertOrSplit(slices(works), fresh);
      } catch (InsertException again) {
        retryLater(works, again);
      }
    }
  }

  private void retryLater(List<Work> works, InsertException cause) {
    JsonLog.warning(
        "batch not written; Pub/Sub will redeliver",
        Map.of("messages", works.size(), "kind", cause.kind().name(), "error", cause.getMessage()));
    works.forEach(work -> work.retryLater = true);
  }

  /** Inserts the rows; when ClickHouse refuses the data, splits until the guilty rows are found. */
  private void insertOrSplit(List<RowSlice> rows, TargetTable.Snapshot snapshot)
      throws InsertException, InterruptedException {
    if (rows.isEmpty()) {
      return;
    }
    try {
      insert(rows, snapshot);
    } catch (InsertException e) {
      if (e.kind() != FailureKind.BAD_DATA) {
        throw e;
      }
      if (rows.size() == 1) {
        RowSlice guilty = rows.get(0);
        PendingMessage message = guilty.work.encoded;
        guilty.work.failures.add(
            encoder.failure(
                message.message(),
                message.message().data(),
                "ClickHouse refused the row: " + e.getMessage(),
                message.rowCount() > 1 ? guilty.row : -1));
        return;
      }
      int middle = rows.size() / 2;
      insertOrSplit(rows.subList(0, middle), snapshot);
      insertOrSplit(rows.subList(middle, rows.size()), snapshot);
    }
  }

  private void insert(List<RowSlice> rows, TargetTable.Snapshot snapshot)
      throws InsertException, InterruptedException {
    RowBinaryOutput out = new RowBinaryOutput(64 * rows.size());
    for (RowSlice slice : rows) {
      PendingMessage message = slice.work.encoded;
      out.writeBytes(
          message.rows(),
          message.rowStarts()[slice.row],
          message.rowStarts()[slice.row + 1] - message.rowStarts()[slice.row]);
    }
    long start = System.nanoTime();
    try {
      inserter.insert(
          table.name(),
          snapshot.encoder().columnNames(),
          out,
          deduplicationToken(rows),
          snapshot.encoder().readsJsonAsString());
      metrics.inserts.increment();
      metrics.insertedRows.add(rows.size());
      metrics.batchRows.record(rows.size());
    } catch (InsertException e) {
      metrics.insertFailures.increment();
      throw e;
    } finally {
      metrics.insertLatencyMillis.record((System.nanoTime() - start) / 1_000_000);
    }
  }

  /**
   * The same rows of the same messages always get the same token, so an INSERT retried after a lost
   * answer is not written twice on a deduplicating table. Null when a message has no id.
   */
  private static String deduplicationToken(List<RowSlice> rows) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    for (RowSlice slice : rows) {
      String id = slice.work.pending.message().messageId();
      if (id == null) {
        return null;
      }
      digest.update(id.getBytes(StandardCharsets.UTF_8));
      digest.update((byte) 0);
      digest.update((byte) slice.row);
      digest.update((byte) (slice.row >>> 8));
    }
    return "pubsub-" + HexFormat.of().formatHex(digest.digest(), 0, 16);
  }

  private void encodeAgain(Work work, TargetTable.Snapshot snapshot) {
    PendingMessage again = encoder.encode(work.pending.message(), snapshot);
    work.encoded = again;
    work.failures.clear();
    work.failures.addAll(again.failures());
  }

  private static List<RowSlice> slices(List<Work> works) {
    List<RowSlice> rows = new ArrayList<>();
    for (Work work : works) {
      for (int row = 0; row < work.encoded.rowCount(); row++) {
        rows.add(new RowSlice(work, row));
      }
    }
    return rows;
  }

  private void sinkFailures(List<Work> works) {
    List<Work> failing =
        works.stream().filter(w -> !w.retryLater && !w.failures.isEmpty()).toList();
    if (failing.isEmpty() || sinks.isEmpty()) {
      return;
    }
    List<FailedMessage> failures = failing.stream().flatMap(w -> w.failures.stream()).toList();
    for (ErrorSink sink : sinks) {
      try {
        sink.write(failures);
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        JsonLog.error(
            "error sink failed; Pub/Sub will redeliver",
            Map.of("sink", sink.name(), "messages", failing.size()),
            e);
        failing.forEach(work -> work.retryLater = true);
        return;
      }
    }
    metrics.deadLettered.add(failing.size());
  }

  private void answer(List<Work> works) {
    for (Work work : works) {
      PushOutcome outcome;
      if (work.retryLater) {
        outcome = PushOutcome.UNAVAILABLE;
      } else if (work.failures.isEmpty()) {
        outcome = PushOutcome.STORED;
      } else {
        outcome = sinks.isEmpty() ? PushOutcome.UNPROCESSABLE : PushOutcome.DEAD_LETTERED;
      }
      work.pending.answer().complete(outcome);
    }
  }
}
