package dev.pubsubclickhouse.replay.subscription;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.retrying.RetrySettings;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.api.gax.rpc.TransportChannelProvider;
import com.google.cloud.pubsub.v1.Publisher;
import com.google.cloud.pubsub.v1.stub.GrpcSubscriberStub;
import com.google.cloud.pubsub.v1.stub.SubscriberStub;
import com.google.cloud.pubsub.v1.stub.SubscriberStubSettings;
import com.google.pubsub.v1.TopicName;
import dev.pubsubclickhouse.messages.PubSubRetries;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The two Pub/Sub clients a replay needs: a subscriber for synchronous pull, acknowledge and ack
 * deadlines, and a publisher with message ordering (a republished message keeps its ordering key).
 * Google's endpoints with Application Default Credentials, or an emulator's {@code host:port} in
 * plaintext without credentials.
 */
final class PubSubClients implements AutoCloseable {
  /**
   * A publish gives up after 30 s: the run then stops, and what it pulled goes back. The retry
   * settings say so, and the run bounds its wait to the same (SubscriptionReplay#answer), since
   * with message ordering on the library retries without end.
   */
  static final Duration PUBLISH_WAIT = Duration.ofSeconds(30);

  private static final RetrySettings PUBLISH_RETRIES =
      PubSubRetries.within(PUBLISH_WAIT, Duration.ofSeconds(10), Duration.ofSeconds(5));

  final SubscriberStub subscriber;
  final Publisher publisher;
  private final ManagedChannel ownChannel;

  private PubSubClients(SubscriberStub subscriber, Publisher publisher, ManagedChannel channel) {
    this.subscriber = subscriber;
    this.publisher = publisher;
    this.ownChannel = channel;
  }

  /**
   * @param endpoint an emulator's {@code host:port}, or null for Google's Pub/Sub
   */
  static PubSubClients open(String endpoint, TopicName topic) throws IOException {
    SubscriberStubSettings.Builder subscriber = SubscriberStubSettings.newBuilder();
    // A pull that cannot get through for 10 s stops the run before it took anything; an
    // acknowledge or ack deadline is tried for longer, since a message waits on it.
    subscriber.pullSettings().setRetrySettings(retries(Duration.ofSeconds(10)));
    subscriber.acknowledgeSettings().setRetrySettings(retries(Duration.ofSeconds(30)));
    subscriber.modifyAckDeadlineSettings().setRetrySettings(retries(Duration.ofSeconds(30)));
    Publisher.Builder publisher =
        Publisher.newBuilder(topic)
            .setEnableMessageOrdering(true)
            .setRetrySettings(PUBLISH_RETRIES);
    ManagedChannel channel = null;
    if (endpoint != null) {
      channel = ManagedChannelBuilder.forTarget(endpoint).usePlaintext().build();
      TransportChannelProvider channels =
          FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel));
      subscriber
          .setTransportChannelProvider(channels)
          .setCredentialsProvider(NoCredentialsProvider.create());
      publisher.setChannelProvider(channels).setCredentialsProvider(NoCredentialsProvider.create());
    }
    try {
      return new PubSubClients(
          GrpcSubscriberStub.create(subscriber.build()), publisher.build(), channel);
    } catch (IOException | RuntimeException e) {
      if (channel != null) {
        channel.shutdownNow();
      }
      throw e;
    }
  }

  private static RetrySettings retries(Duration total) {
    return RetrySettings.newBuilder()
        .setInitialRetryDelayDuration(Duration.ofMillis(100))
        .setRetryDelayMultiplier(2)
        .setMaxRetryDelayDuration(Duration.ofSeconds(2))
        .setInitialRpcTimeoutDuration(total)
        .setRpcTimeoutMultiplier(1)
        .setMaxRpcTimeoutDuration(total)
        .setTotalTimeoutDuration(total)
        .build();
  }

  @Override
  public void close() throws InterruptedException {
    publisher.shutdown();
    publisher.awaitTermination(10, TimeUnit.SECONDS);
    subscriber.close();
    if (ownChannel != null) {
      ownChannel.shutdownNow();
    }
  }
}
