package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.function.observability.Metrics;
import dev.pubsubclickhouse.function.observability.WarningInterval;
import dev.pubsubclickhouse.messages.MemoryCharge;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.UnavailableException;
import dev.pubsubclickhouse.messages.tables.Destinations;
import dev.pubsubclickhouse.messages.tables.Route;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Takes one message from the push request to its answer, in plain Java. It routes the message to
 * its table, and answers 429 while flow control says that table cannot take more, or while the
 * memory reading the message needs cannot be had. Otherwise it encodes the message on the caller's
 * thread and hands it to the batcher. Then it waits for the batch, or for the answer timeout
 * ({@link AnswerDeadlines}), and says how the message ended and, when it could not be written, why.
 */
public final class Ingestor {
  private final Destinations destinations;
  private final MessageEncoder encoder;
  private final GroupCommitBatcher batcher;
  private final AnswerDeadlines deadlines;
  private final Metrics metrics;
  private final Predicate<TableName> admits;

  /** One log line per interval about messages answered 503 before their batch. */
  private final WarningInterval unavailableWarnings = new WarningInterval(Duration.ofSeconds(10));

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
   * Ingests one message and waits for how it ended. The calling thread waits inside the batcher,
   * where it may be handed its own batch to write (see {@link GroupCommitBatcher#answerOf}).
   *
   * @param memory where the request counts what reading the message takes
   */
  public PushAnswer ingest(PubSubMessage message, MemoryCharge memory) {
    long arrived = System.nanoTime();
    Offered offered = offer(message, memory, arrived, true);
    if (offered.early() != null) {
      return offered.early();
    }
    PendingMessage pending = offered.pending();
    PushOutcome outcome = batcher.answerOf(pending);
    long taken = pending.takenNanos();
    // Timed when its batch answered it: not when its deadline did first.
    if (taken != 0 && pending.answeredNanos() - taken >= 0) {
      metrics.requestPhases.record(
          arrived, pending.enqueuedNanos(), taken, pending.answeredNanos(), System.nanoTime());
    }
    return answerOf(outcome, pending);
  }

  /**
   * Routes and encodes the message on the caller's thread and hands it to the batcher, without
   * waiting for its batch: for an edge whose caller must not park a thread per message (a streaming
   * pull acknowledges each message when its answer comes). No batch is ever handed to the caller's
   * thread, but when its own table's batch may go at once it writes that batch before this returns
   * (see {@link GroupCommitBatcher#offer}).
   *
   * @param memory where the caller counts what reading the message takes; it may give it back once
   *     the answer is complete
   * @return the answer, completed with an outcome and never exceptionally
   */
  public CompletableFuture<PushAnswer> submit(PubSubMessage message, MemoryCharge memory) {
    Offered offered = offer(message, memory, System.nanoTime(), false);
    if (offered.early() != null) {
      return CompletableFuture.completedFuture(offered.early());
    }
    PendingMessage pending = offered.pending();
    return pending
        .answer() // only ever completed with an outcome, never exceptionally
        .thenApply(outcome -> answerOf(outcome, pending));
  }

  /** A message handed to the batcher, or the answer it got before it could be. */
  private record Offered(PendingMessage pending, PushAnswer early) {}

  private Offered offer(
      PubSubMessage message, MemoryCharge memory, long arrived, boolean callerWaits) {
    metrics.messagesReceived.increment();
    PendingMessage pending;
    try {
      Route route = route(message);
      if (!admits.test(route.tableName())) {
        metrics.overloaded.increment();
        metrics.throttled.increment();
        return answered(PushOutcome.OVERLOADED);
      }
      MessageEncoder.Encoding encoding = encoder.encode(message, route, memory);
      pending =
          new PendingMessage(
              message, encoder, route, encoding.format(), encoding.schema(), encoding.rows());
    } catch (RequestMemoryBudget.NoRoomException e) {
      metrics.overloaded.increment();
      return answered(PushOutcome.OVERLOADED);
    } catch (UnavailableException e) {
      logUnavailable(message, e);
      return answered(PushOutcome.UNAVAILABLE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return answered(PushOutcome.UNAVAILABLE);
    }
    // Routing, a schema fetch or a new column may have taken the answer's whole time: a message
    // batched now could be written after Pub/Sub has given up on this delivery, and then again.
    if (deadlines.expired(arrived)) {
      return answered(PushOutcome.UNAVAILABLE);
    }
    // Watched before it is offered: a caller that writes its own batch (see offer) is in it, and
    // the batch's INSERT attempt ends by the last deadline of its messages (no later answer
    // counts).
    pending.answerBy(deadlines.watch(pending.answer(), arrived));
    if (callerWaits) {
      pending.waitsInBatcher();
    }
    switch (batcher.offer(pending)) {
      case FULL -> {
        metrics.overloaded.increment();
        pending.answer().complete(PushOutcome.OVERLOADED); // the sweep forgets it
        return answered(PushOutcome.OVERLOADED);
      }
      case CLOSING -> {
        pending.answer().complete(PushOutcome.UNAVAILABLE);
        return answered(PushOutcome.UNAVAILABLE);
      }
      case NONE -> {}
    }
    return new Offered(pending, null);
  }

  private static Offered answered(PushOutcome outcome) {
    return new Offered(null, PushAnswer.of(outcome));
  }

  /** The outcome with the reason a refused message's dead letter holds. */
  private static PushAnswer answerOf(PushOutcome outcome, PendingMessage pending) {
    String reason = pending.reason();
    return reason == null
            || (outcome != PushOutcome.DEAD_LETTERED && outcome != PushOutcome.UNPROCESSABLE)
        ? PushAnswer.of(outcome)
        : new PushAnswer(outcome, reason);
  }

  private Route route(PubSubMessage message) throws UnavailableException {
    Route route = destinations.route(message);
    if (route.isUnavailable()) {
      throw new UnavailableException(route.unavailable(), null);
    }
    return route;
  }

  private void logUnavailable(PubSubMessage message, UnavailableException e) {
    if (unavailableWarnings.mayLog()) {
      JsonLog.warning(
          "a message cannot be taken now; answered 503 so Pub/Sub delivers it again",
          Map.of("message", message.describe(), "error", String.valueOf(e.getMessage())));
    }
  }
}
