package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.function.envelope.PushMessage;
import dev.pubsubclickhouse.function.observability.Metrics;

/**
 * Where a message goes, in plain Java: encode it on the caller's thread, hand it to the batcher,
 * wait for the batch (or the answer timeout, {@link AnswerDeadlines}), and say how it ended.
 */
public final class Ingestor {
  private final TargetTable table;
  private final MessageEncoder encoder;
  private final GroupCommitBatcher batcher;
  private final AnswerDeadlines deadlines;
  private final Metrics metrics;

  public Ingestor(
      TargetTable table,
      MessageEncoder encoder,
      GroupCommitBatcher batcher,
      AnswerDeadlines deadlines,
      Metrics metrics) {
    this.table = table;
    this.encoder = encoder;
    this.batcher = batcher;
    this.deadlines = deadlines;
    this.metrics = metrics;
  }

  public PushOutcome ingest(PushMessage message) {
    metrics.messagesReceived.increment();
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
