package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.function.envelope.PushMessage;
import dev.pubsubclickhouse.function.observability.Metrics;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where a message goes, in plain Java: encode it on the caller's thread, hand it to the batcher,
 * wait for the batch, and say how it ended.
 */
public final class Ingestor {
  private final TargetTable table;
  private final MessageEncoder encoder;
  private final GroupCommitBatcher batcher;
  private final Duration answerTimeout;
  private final Metrics metrics;

  public Ingestor(
      TargetTable table,
      MessageEncoder encoder,
      GroupCommitBatcher batcher,
      Duration answerTimeout,
      Metrics metrics) {
    this.table = table;
    this.encoder = encoder;
    this.batcher = batcher;
    this.answerTimeout = answerTimeout;
    this.metrics = metrics;
  }

  public PushOutcome ingest(PushMessage message) {
    metrics.messagesReceived.increment();
    PendingMessage pending = encoder.encode(message, table.current());
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
    try {
      return pending.answer().get(answerTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return PushOutcome.UNAVAILABLE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return PushOutcome.UNAVAILABLE;
    }
  }
}
