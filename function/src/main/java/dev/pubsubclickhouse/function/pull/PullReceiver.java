package dev.pubsubclickhouse.function.pull;

import com.google.api.core.ApiFuture;
import com.google.cloud.pubsub.v1.AckReplyConsumerWithResponse;
import com.google.cloud.pubsub.v1.AckResponse;
import com.google.cloud.pubsub.v1.MessageReceiverWithAckResponse;
import com.google.cloud.pubsub.v1.Subscriber;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.pubsub.v1.PubsubMessage;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.function.PushService;
import dev.pubsubclickhouse.function.ingest.PushAnswer;
import dev.pubsubclickhouse.function.ingest.PushOutcome;
import dev.pubsubclickhouse.function.ingest.RequestMemoryBudget;
import dev.pubsubclickhouse.function.observability.Metrics;
import dev.pubsubclickhouse.function.observability.RefusalLog;
import dev.pubsubclickhouse.function.observability.WarningInterval;
import dev.pubsubclickhouse.messages.PubSubMessage;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * The pull edge, as thin as the push handler: a pulled message takes a hold on the memory budget as
 * a push request's body does, goes to the service's ingestion path, and is acked when its outcome
 * would have been a 2xx (its rows in ClickHouse, or the message in a dead-letter sink), nacked
 * otherwise, so that Pub/Sub delivers it again. The receiving thread only reads and encodes the
 * message; waiting for its batch holds no thread.
 *
 * <p>An ack counts as done only once Pub/Sub confirms it. On a subscription with exactly-once
 * delivery Pub/Sub may refuse it (the ack id expired, the message was delivered again meanwhile):
 * the rows are in ClickHouse already and the redelivered copy is written again, in another batch
 * under another deduplication token; the exactly-once layout collapses the two under FINAL.
 */
final class PullReceiver implements MessageReceiverWithAckResponse {
  private final PushService service;
  private final String subscription;
  private final Metrics metrics;

  /** One log line per interval about acks Pub/Sub refused. */
  private final WarningInterval ackFailureWarnings = new WarningInterval(Duration.ofSeconds(10));

  private final RefusalLog refusals = new RefusalLog(System::nanoTime, "nacked");

  PullReceiver(PushService service, String subscription) {
    this.service = service;
    this.subscription = subscription;
    this.metrics = service.metrics();
  }

  @Override
  public void receiveMessage(PubsubMessage pulled, AckReplyConsumerWithResponse reply) {
    RequestMemoryBudget.Hold memory =
        service.requestMemory().hold(RequestMemoryBudget.cost(pulled.getData().size()));
    if (memory == null) {
      metrics.overloaded.increment();
      settle(PushOutcome.OVERLOADED, reply, null);
      return;
    }
    try {
      PubSubMessage message =
          PulledMessages.of(pulled, subscription, Subscriber.getDeliveryAttempt(pulled));
      service
          .submit(message, memory)
          .whenComplete(
              (answer, failure) -> {
                memory.close();
                if (failure == null && answer.reason() != null) {
                  refusals.refused(
                      message,
                      answer.outcome() == PushOutcome.DEAD_LETTERED,
                      PushAnswer.reasonText(answer.reason(), null));
                }
                settle(
                    failure == null ? answer.outcome() : PushOutcome.UNAVAILABLE, reply, message);
              });
    } catch (RuntimeException | Error e) {
      memory.close();
      JsonLog.error("a pulled message failed unexpectedly; nacked", Map.of(), e);
      settle(PushOutcome.UNAVAILABLE, reply, null);
    }
  }

  private void settle(PushOutcome outcome, AckReplyConsumerWithResponse reply, PubSubMessage of) {
    if (!outcome.acknowledged()) {
      if (outcome == PushOutcome.UNAVAILABLE) {
        metrics.unavailable.increment();
      }
      metrics.pullNacked.increment();
      reply.nack();
      return;
    }
    ApiFuture<AckResponse> ack = reply.ack();
    ack.addListener(() -> confirmed(ack, of), MoreExecutors.directExecutor());
  }

  private void confirmed(ApiFuture<AckResponse> ack, PubSubMessage message) {
    AckResponse response;
    try {
      response = ack.get();
    } catch (ExecutionException | InterruptedException | RuntimeException e) {
      response = AckResponse.OTHER;
    }
    if (response == AckResponse.SUCCESSFUL) {
      metrics.pullAcked.increment();
      return;
    }
    metrics.pullAckFailures.increment();
    if (ackFailureWarnings.mayLog()) {
      JsonLog.warning(
          "Pub/Sub refused an ack; the message comes again and is written again",
          Map.of(
              "message",
              message == null ? "unknown" : message.describe(),
              "ackResponse",
              response.name()));
    }
  }
}
