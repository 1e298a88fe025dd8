package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.WriteOutcome;
import dev.pubsubclickhouse.messages.tables.Destination;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Writes one batch through core's {@link dev.pubsubclickhouse.core.write.TableWriter}, one INSERT
 * per destination. The batcher's batches hold one table's messages. A message that names no table
 * it may write goes through the default table's writer to the dead letters. Each request is
 * answered with what became of its message, whatever happens.
 */
public final class BatchWriter implements Consumer<List<PendingMessage>> {
  @Override
  public void accept(List<PendingMessage> batch) {
    try {
      for (Map.Entry<Destination, List<PendingMessage>> table : byTable(batch).entrySet()) {
        // A request answered 503 before its INSERT (its deadline passed while it waited) is not
        // written, or Pub/Sub's redelivery would write it a second time.
        List<PendingMessage> messages =
            table.getValue().stream().filter(m -> !m.answer().isDone()).toList();
        if (!messages.isEmpty()) {
          write(table.getKey(), messages);
        }
      }
    } finally {
      // A no-op for answered requests; 503 for the rest if the writer failed unexpectedly.
      batch.forEach(message -> message.answer().complete(PushOutcome.UNAVAILABLE));
    }
  }

  /**
   * One table's INSERT, each message answered with what became of it. A writer that fails
   * unexpectedly (a bug: it reports failures as outcomes) leaves this table's messages to Pub/Sub
   * (503), not the batch's other tables'.
   */
  private static void write(Destination table, List<PendingMessage> messages) {
    try {
      TableWriter.Result result = table.write(messages, PendingMessage::route);
      for (int i = 0; i < messages.size(); i++) {
        PendingMessage message = messages.get(i);
        message.reason(result.reasons().get(i));
        message.answer().complete(answer(result.outcomes().get(i)));
      }
    } catch (RuntimeException e) {
      JsonLog.error(
          "writing a table's messages failed",
          Map.of("table", table.table().name().toString(), "messages", messages.size()),
          e);
      messages.forEach(message -> message.answer().complete(PushOutcome.UNAVAILABLE));
    }
  }

  /** The batch's messages by table, each table's in the batch's order. */
  private static Map<Destination, List<PendingMessage>> byTable(List<PendingMessage> batch) {
    Map<Destination, List<PendingMessage>> tables = new LinkedHashMap<>(4);
    for (PendingMessage message : batch) {
      tables.computeIfAbsent(message.destination(), table -> new ArrayList<>()).add(message);
    }
    return tables;
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
