package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.function.observability.Metrics;
import dev.pubsubclickhouse.messages.MemoryCharge;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.UnavailableException;
import dev.pubsubclickhouse.messages.tables.Destinations;
import dev.pubsubclickhouse.messages.tables.Route;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Takes one message from the push request to its answer, in plain Java. It routes the message to
 * its table, and answers 429 while flow control says that table cannot take more, or while the
 * memory reading the message needs cannot be had. Otherwise it encodes the message on the caller's
 * thread and hands it to the batcher. Then it waits for the batch, or for the answer timeout
 * ({@link AnswerDeadlines}), and says how the message ended.
 */
public final class Ingestor {
  /** One log line per this interval about messages answered 503 before their batch. */
  private static final long UNAVAILABLE_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final Destinations destinations;
  private final MessageEncoder encoder;
  private final GroupCommitBatcher batcher;
  private final AnswerDeadlines deadlines;
  private final Metrics metrics;
  private final Predicate<TableName> admits;
  private final AtomicLong lastUnavailableLog = new AtomicLong(System.nanoTime() - (1L << 62));

  /**
   * @param admits false for a table that cannot take more now (flow control)
   */
  public Ingestor(
      Destinations destinations,
      MessageEncoder encoder,
      GroupCommitBatcher batcher,
      AnswerDeadlines deadlines,
      Metrics metrics,
      Predicate<TableName> admits) {
    this.destinations = destinations;
    this.encoder = encoder;
    this.batcher = batcher;
    this.deadlines = deadlines;
    this.metrics = metrics;
    this.admits = admits;
  }

  /**
   * @param memory where the request counts what reading the message takes
   */
  public PushOutcome ingest(PubSubMessage message, MemoryCharge memory) {
    long arrived = System.nanoTime();
    metrics.messagesReceived.increment();
    PendingMessage pending;
    try {
      Route route = route(message);
      if (!admits.test(route.tableName())) {
        metrics.overloaded.increment();
        metrics.throttled.increment();
        return PushOutcome.OVERLOADED;
      }
      MessageEncoder.Encoding encoding = encoder.encode(message, route, memory);
      pending =
          new PendingMessage(
              message, encoder, route, encoding.format(), encoding.schema(), encoding.rows());
    } catch (RequestMemoryBudget.NoRoomException e) {
      metrics.overloaded.increment();
      return PushOutcome.OVERLOADED;
    } catch (UnavailableException e) {
      logUnavailable(message, e);
      return PushOutcome.UNAVAILABLE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return PushOutcome.UNAVAILABLE;
    }
    // Routing, a schema fetch or a new column may have taken the answer's whole time: a message
    // batched now could be written after Pub/Sub has given up on this delivery, and then again.
    if (deadlines.expired(arrived)) {
      return PushOutcome.UNAVAILABLE;
    }
    // Watched before it is offered: a caller that writes its own batch (see offer) is in it, and
    // the batch's INSERT attempt ends by the last deadline of its messages (no later answer
    // counts).
    pending.answerBy(deadlines.watch(pending.answer(), arrived));
    pending.waitsInBatcher();
    switch (batcher.offer(pending)) {
      case FULL -> {
        metrics.overloaded.increment();
        pending.answer().complete(PushOutcome.OVERLOADED); // the sweep forgets it
        return PushOutcome.OVERLOADED;
      }
      case CLOSING -> {
        pending.answer().complete(PushOutcome.UNAVAILABLE);
        return PushOutcome.UNAVAILABLE;
      }
      case NONE -> {}
    }
    PushOutcome outcome = batcher.answerOf(pending);
    long taken = pending.takenNanos();
    // Timed when its batch answered it: not when its deadline did first.
    if (taken != 0 && pending.answeredNanos() - taken >= 0) {
      metrics.requestPhases.record(
          arrived, pending.enqueuedNanos(), taken, pending.answeredNanos(), System.nanoTime());
    }
    return outcome;
  }

  private Route route(PubSubMessage message) throws UnavailableException {
    Route route = destinations.route(message);
    if (route.isUnavailable()) {
      throw new UnavailableException(route.unavailable(), null);
    }
    return route;
  }

  private void logUnavailable(PubSubMessage message, UnavailableException e) {
    long now = System.nanoTime();
    long last = lastUnavailableLog.get();
    if (now - last >= UNAVAILABLE_LOG_INTERVAL_NANOS
        && lastUnavailableLog.compareAndSet(last, now)) {
      JsonLog.warning(
          "a message cannot be taken now; answered 503 so Pub/Sub delivers it again",
          Map.of("message", message.describe(), "error", String.valueOf(e.getMessage())));
    }
  }
}
