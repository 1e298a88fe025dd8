package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.WriteOutcome;
import java.util.List;
import java.util.function.Consumer;

/**
 * Writes one batch through core's {@link TableWriter} and answers each of its requests with what
 * became of its message. Every request of the batch is answered, whatever happens.
 */
public final class BatchWriter implements Consumer<List<PendingMessage>> {
  private final TableWriter writer;

  public BatchWriter(TableWriter writer) {
    this.writer = writer;
  }

  @Override
  public void accept(List<PendingMessage> batch) {
    try {
      List<WriteOutcome> outcomes = writer.write(batch).outcomes();
      for (int i = 0; i < batch.size(); i++) {
        batch.get(i).answer().complete(answer(outcomes.get(i)));
      }
    } finally {
      // A no-op for answered requests; 503 for the rest if the writer failed unexpectedly.
      batch.forEach(message -> message.answer().complete(PushOutcome.UNAVAILABLE));
    }
  }

  static PushOutcome answer(WriteOutcome outcome) {
    return switch (outcome) {
      case WRITTEN -> PushOutcome.STORED;
      case DEAD_LETTERED -> PushOutcome.DEAD_LETTERED;
      case REFUSED -> PushOutcome.UNPROCESSABLE;
      case RETRY -> PushOutcome.UNAVAILABLE;
    };
  }
}
