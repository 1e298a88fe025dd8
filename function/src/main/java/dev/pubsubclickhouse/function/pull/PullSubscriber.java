package dev.pubsubclickhouse.function.pull;

import com.google.api.gax.batching.FlowControlSettings;
import com.google.api.gax.batching.FlowController;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.cloud.pubsub.v1.Subscriber;
import com.google.common.util.concurrent.MoreExecutors;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.function.PushConfig;
import dev.pubsubclickhouse.function.PushService;
import dev.pubsubclickhouse.function.ingest.BatchPolicy;
import dev.pubsubclickhouse.function.ingest.RequestMemoryBudget;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The pull mode: a streaming-pull {@link Subscriber} on PUBSUB_SUBSCRIPTION feeding the service's
 * ingestion path through {@link PullReceiver}. It starts pulling once the write path is open, so
 * that messages are not taken only to be nacked while ClickHouse is not there yet.
 *
 * <p>Its flow control is the service's own budget: at most MAX_PENDING_MESSAGES messages
 * outstanding (the batcher's bound on waiting messages, so the batcher never refuses a pulled one
 * as full), and at most an eighth of MAX_PENDING_BYTES of message data: each message then holds
 * four bytes of the budget per byte of data, as a push request does, and the other half is left for
 * what reading messages takes (decompressed data, parsed rows). The subscriber extends the ack
 * deadline of every message it holds, {@link #LEASE} at a time; a message whose batch has not
 * answered within ANSWER_TIMEOUT_MS is nacked, and extensions stop a little later, so nothing is
 * held forever.
 *
 * <p>Shutdown, on SIGTERM: the subscriber stops pulling and waits for the messages it holds; the
 * service refuses new work, writes the batches in flight and answers the rest (nack); the
 * subscriber sends the last acks and nacks; all within SHUTDOWN_GRACE_SECONDS, on the {@link
 * ShutdownTimeline}.
 */
public final class PullSubscriber {
  /** Ack-deadline extensions go on this long after a message's answer was due. */
  private static final Duration EXTENSION_MARGIN = Duration.ofSeconds(30);

  /**
   * The longest lease one ack-deadline extension takes, and the stream's ack deadline: a message
   * Pub/Sub sent on a stream that a stop or a crash cut before the subscriber saw it, or one whose
   * last extension nobody follows, is delivered again after at most this long. Without it the
   * stream's deadline is 60 seconds and an extension may reach the answer time's 99.9th percentile.
   */
  static final Duration LEASE = Duration.ofSeconds(20);

  private final PushService service;
  private final PullSettings settings;
  private final ShutdownTimeline timeline;
  private final Subscriber subscriber;
  private final ManagedChannel channel;
  private final Thread starter;
  private volatile boolean stopping;

  private PullSubscriber(PushService service, PullSettings settings) {
    this.service = service;
    this.settings = settings;
    this.timeline = new ShutdownTimeline(settings.shutdownGrace());
    PushConfig config = service.config();
    Subscriber.Builder builder =
        Subscriber.newBuilder(
                settings.subscription(), new PullReceiver(service, settings.subscription()))
            .setFlowControlSettings(flowControl(config.batch()))
            .setMaxAckExtensionPeriodDuration(config.batch().answerTimeout().plus(EXTENSION_MARGIN))
            .setMaxDurationPerAckExtensionDuration(LEASE)
            .setSubscriberShutdownSettings(timeline.subscriberSettings());
    if (config.pubsubEndpoint().isPresent()) {
      channel =
          ManagedChannelBuilder.forTarget(config.pubsubEndpoint().get()).usePlaintext().build();
      builder
          .setChannelProvider(
              FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel)))
          .setCredentialsProvider(NoCredentialsProvider.create());
    } else {
      channel = null;
    }
    this.subscriber = builder.build();
    this.starter = new Thread(this::startWhenReady, "pull-start");
    starter.setDaemon(true);
  }

  /**
   * The subscriber's bounds from the service's: see the class comment.
   *
   * @see <a href="https://cloud.google.com/pubsub/docs/flow-control-messages">Flow control</a>
   */
  static FlowControlSettings flowControl(BatchPolicy batch) {
    return FlowControlSettings.newBuilder()
        .setMaxOutstandingElementCount((long) batch.maxPendingMessages())
        .setMaxOutstandingRequestBytes(
            Math.max(1, batch.maxPendingBytes() / RequestMemoryBudget.BYTES_PER_BODY_BYTE / 2))
        .setLimitExceededBehavior(FlowController.LimitExceededBehavior.Block)
        .build();
  }

  /** Builds the subscriber and starts pulling as soon as the service's write path opens. */
  public static PullSubscriber start(PushService service, PullSettings settings) {
    PullSubscriber pull = new PullSubscriber(service, settings);
    pull.starter.start();
    return pull;
  }

  private void startWhenReady() {
    try {
      while (!stopping && !service.awaitReady(Duration.ofSeconds(1))) {
        // the service logs what it waits for; /healthz says it
      }
    } catch (InterruptedException e) {
      return;
    }
    synchronized (this) {
      if (stopping) {
        return;
      }
      subscriber.addListener(
          new Subscriber.Listener() {
            @Override
            public void failed(Subscriber.State from, Throwable failure) {
              JsonLog.error(
                  "the subscriber stopped pulling", Map.of("subscription", name()), failure);
            }
          },
          MoreExecutors.directExecutor());
      subscriber.startAsync();
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("subscription", name());
    FlowControlSettings flow = flowControl(service.config().batch());
    fields.put("maxOutstandingMessages", flow.getMaxOutstandingElementCount());
    fields.put("maxOutstandingBytes", flow.getMaxOutstandingRequestBytes());
    JsonLog.info("pulling", fields);
  }

  private String name() {
    return settings.subscription();
  }

  /**
   * Stops the service on the {@code timeline}: it writes its batches until the service's time is
   * up, then answers every message it still holds (nack), each answer being a call.
   */
  static void stopService(PushService service, ShutdownTimeline timeline) {
    service.shutdown(timeline.serviceWriting(), Duration.ZERO);
  }

  /** Why the subscriber failed, if it did: then only a new process pulls again. */
  public Optional<String> failure() {
    return subscriber.state() == Subscriber.State.FAILED
        ? Optional.of("the subscriber failed: " + subscriber.failureCause())
        : Optional.empty();
  }

  /**
   * Stops pulling, lets the service write and answer what it holds, sends the last acks and nacks,
   * and returns within the grace period.
   */
  public void shutdown() {
    long deadline = System.nanoTime() + timeline.grace().toNanos();
    boolean started;
    synchronized (this) {
      stopping = true;
      started = subscriber.state() != Subscriber.State.NEW;
      if (started) {
        subscriber.stopAsync();
      }
    }
    starter.interrupt();
    stopService(service, timeline);
    if (started) {
      try {
        subscriber.awaitTerminated(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException | IllegalStateException e) {
        JsonLog.warning(
            "the subscriber did not stop within the grace period", Map.of("error", e.toString()));
      }
    }
    if (channel != null) {
      channel.shutdownNow();
    }
    JsonLog.info("pull stopped", Map.of("subscription", name()));
  }
}
