package dev.pubsubclickhouse.function.sinks;

import com.google.api.core.ApiFuture;
import com.google.api.core.ApiFutures;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.retrying.RetrySettings;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.api.gax.rpc.TransportChannelProvider;
import com.google.cloud.pubsub.v1.Publisher;
import com.google.protobuf.ByteString;
import com.google.pubsub.v1.PubsubMessage;
import com.google.pubsub.v1.TopicName;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Failures republished to a Pub/Sub dead-letter topic: the original data and attributes, plus
 * {@code errorMessage} and {@code failedAt} attributes (the Dataflow template drops the original
 * attributes; this keeps them, so a replay is the same message).
 */
public final class DeadLetterTopicSink implements ErrorSink {
  /**
   * A publish gives up after 10 s (the client's default is 10 minutes): the batch waiting on it
   * holds requests that Pub/Sub will otherwise time out, and a 503 lets Pub/Sub retry instead.
   */
  private static final RetrySettings RETRIES =
      RetrySettings.newBuilder()
          .setInitialRetryDelayDuration(Duration.ofMillis(100))
          .setRetryDelayMultiplier(2)
          .setMaxRetryDelayDuration(Duration.ofSeconds(2))
          .setInitialRpcTimeoutDuration(Duration.ofSeconds(5))
          .setRpcTimeoutMultiplier(1)
          .setMaxRpcTimeoutDuration(Duration.ofSeconds(5))
          .setTotalTimeoutDuration(Duration.ofSeconds(10))
          .build();

  /** Pub/Sub limits an attribute value to 1024 bytes. */
  private static final int MAX_ATTRIBUTE_CHARS = 1000;

  private final TopicName topic;
  private final Publisher publisher;
  private final ManagedChannel ownChannel;

  private DeadLetterTopicSink(TopicName topic, Publisher publisher, ManagedChannel ownChannel) {
    this.topic = topic;
    this.publisher = publisher;
    this.ownChannel = ownChannel;
  }

  /**
   * A publisher to Google's Pub/Sub, or, with {@code endpoint} set ({@code host:port} of an
   * emulator or a test server), to that endpoint in plaintext without credentials.
   */
  public static DeadLetterTopicSink open(String topicName, String endpoint) throws IOException {
    TopicName topic = TopicName.parse(topicName);
    if (endpoint == null || endpoint.isBlank()) {
      return new DeadLetterTopicSink(
          topic, Publisher.newBuilder(topic).setRetrySettings(RETRIES).build(), null);
    }
    ManagedChannel channel = ManagedChannelBuilder.forTarget(endpoint).usePlaintext().build();
    return withChannel(topic, channel, channel);
  }

  /** A publisher over a given channel (an in-process one in tests). */
  public static DeadLetterTopicSink withChannel(
      TopicName topic, ManagedChannel channel, ManagedChannel owned) throws IOException {
    TransportChannelProvider channels =
        FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel));
    Publisher publisher =
        Publisher.newBuilder(topic)
            .setChannelProvider(channels)
            .setCredentialsProvider(NoCredentialsProvider.create())
            .setRetrySettings(RETRIES)
            .build();
    return new DeadLetterTopicSink(topic, publisher, owned);
  }

  @Override
  public void write(List<FailedMessage> failures) throws Exception {
    List<ApiFuture<String>> published = new ArrayList<>(failures.size());
    for (FailedMessage failure : failures) {
      PubsubMessage.Builder message =
          PubsubMessage.newBuilder()
              .setData(ByteString.copyFrom(failure.message().data()))
              .putAllAttributes(failure.message().attributes())
              .putAttributes("errorMessage", clip(failure.record().errorMessage()))
              .putAttributes("failedAt", failure.record().failedAt().toString());
      published.add(publisher.publish(message.build()));
    }
    ApiFutures.allAsList(published).get(15, TimeUnit.SECONDS);
  }

  @Override
  public String name() {
    return "dead-letter topic " + topic;
  }

  public void close() throws InterruptedException {
    publisher.shutdown();
    publisher.awaitTermination(5, TimeUnit.SECONDS);
    if (ownChannel != null) {
      ownChannel.shutdownNow();
    }
  }

  private static String clip(String text) {
    return text.length() <= MAX_ATTRIBUTE_CHARS
        ? text
        : text.substring(0, MAX_ATTRIBUTE_CHARS) + "...";
  }
}
