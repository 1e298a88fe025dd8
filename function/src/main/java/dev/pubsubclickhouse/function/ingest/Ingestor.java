package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.function.envelope.PushMessage;
import dev.pubsubclickhouse.function.observability.Metrics;
import java.util.function.BooleanSupplier;

/**
 * Where a message goes, in plain Java: refuse it (429) while flow control says the table cannot
 * take more, else encode it on the caller's thread, hand it to the batcher, wait for the batch (or
 * the answer timeout, {@link AnswerDeadlines}), and say how it ended.
 */
public final class Ingestor {
  private final TargetTable table;
  private final MessageEncoder encoder;
  private final GroupCommitBatcher batcher;
  private final AnswerDeadlines deadlines;
  private final Metrics metrics;
  private final BooleanSupplier admits;

  /**
   * @param admits false while the target table cannot take more (flow control)
   */
  public Ingestor(
      TargetTable table,
      MessageEncoder encoder,
      GroupCommitBatcher batcher,
      AnswerDeadlines deadlines,
      Metrics metrics,
      BooleanSupplier admits) {
    this.table = table;
    this.encoder = encoder;
    this.batcher = batcher;
    this.deadlines = deadlines;
    this.metrics = metrics;
    this.admits = admits;
  }

  public PushOutcome ingest(PushMessage message) {
    metrics.messagesReceived.increment();
    if (!admits.getAsBoolean()) {
      metrics.overloaded.increment();
      metrics.throttled.increment();
      return PushOutcome.OVERLOADED;
    }
    PendingMessage pending = encoder.pending(message, table.current());
    switch (batcher.offer(pending)) {
      case FULL -> {
        metrics.overloaded.increment();
        return PushOutcome.OVERLOADED;
      }
      case CLOSING -> {
        return PushOutcome.UNAVAILABLE;
      }
      case NONE -> {}
    }
    deadlines.watch(pending.answer());
    return pending.answer().join(); // only ever completed with an outcome, never exceptionally
  }
}
