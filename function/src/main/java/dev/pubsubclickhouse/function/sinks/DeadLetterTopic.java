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
import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Dead letters republished to a Pub/Sub topic, one message per dead letter: the original data and
 * attributes, plus {@code errorMessage} and {@code failedAt} attributes (the Dataflow template
 * drops the original attributes; this keeps them, so a replay is the same message).
 */
public final class DeadLetterTopic implements DeadLetterSink {
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

  /** Pub/Sub's limits: attribute values of at most 1024 bytes, at most 100 attributes. */
  static final int MAX_ATTRIBUTE_VALUE_BYTES = 1024;

  static final int MAX_ATTRIBUTES = 100;

  private final TopicName topic;
  private final Publisher publisher;
  private final ManagedChannel ownChannel;

  private DeadLetterTopic(TopicName topic, Publisher publisher, ManagedChannel ownChannel) {
    this.topic = topic;
    this.publisher = publisher;
    this.ownChannel = ownChannel;
  }

  /**
   * A publisher to Google's Pub/Sub, or, with {@code endpoint} set ({@code host:port} of an
   * emulator or a test server), to that endpoint in plaintext without credentials.
   */
  public static DeadLetterTopic open(String topicName, String endpoint) throws IOException {
    TopicName topic = TopicName.parse(topicName);
    if (endpoint == null || endpoint.isBlank()) {
      return new DeadLetterTopic(
          topic, Publisher.newBuilder(topic).setRetrySettings(RETRIES).build(), null);
    }
    ManagedChannel channel = ManagedChannelBuilder.forTarget(endpoint).usePlaintext().build();
    return withChannel(topic, channel, channel);
  }

  /** A publisher over a given channel (an in-process one in tests). */
  public static DeadLetterTopic withChannel(
      TopicName topic, ManagedChannel channel, ManagedChannel owned) throws IOException {
    TransportChannelProvider channels =
        FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel));
    Publisher publisher =
        Publisher.newBuilder(topic)
            .setChannelProvider(channels)
            .setCredentialsProvider(NoCredentialsProvider.create())
            .setRetrySettings(RETRIES)
            .build();
    return new DeadLetterTopic(topic, publisher, owned);
  }

  @Override
  public void write(List<DeadLetter> deadLetters) throws Exception {
    List<ApiFuture<String>> published = new ArrayList<>(deadLetters.size());
    for (DeadLetter deadLetter : deadLetters) {
      published.add(publisher.publish(message(deadLetter)));
    }
    ApiFutures.allAsList(published).get(15, TimeUnit.SECONDS);
  }

  /**
   * The dead letter as a Pub/Sub message. The original attributes always go unchanged (a message
   * Pub/Sub delivered fits its limits, and a replay must be the same message); {@code errorMessage}
   * and {@code failedAt} are added when the original has no attribute of that name and there is
   * room under the 100-attribute limit, the reason clipped to 1024 UTF-8 bytes.
   */
  static PubsubMessage message(DeadLetter deadLetter) {
    PubsubMessage.Builder message =
        PubsubMessage.newBuilder()
            .setData(ByteString.copyFrom(deadLetter.data()))
            .putAllAttributes(deadLetter.attributes());
    putIfRoom(message, "errorMessage", clip(deadLetter.reason(), MAX_ATTRIBUTE_VALUE_BYTES));
    putIfRoom(message, "failedAt", deadLetter.failedAt().toString());
    return message.build();
  }

  private static void putIfRoom(PubsubMessage.Builder message, String key, String value) {
    if (!message.containsAttributes(key) && message.getAttributesCount() < MAX_ATTRIBUTES) {
      message.putAttributes(key, value);
    }
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

  /**
   * {@code text} cut to at most {@code maxBytes} UTF-8 bytes at a character boundary, ending in
   * "..." when cut.
   */
  static String clip(String text, int maxBytes) {
    if (text.getBytes(StandardCharsets.UTF_8).length <= maxBytes) {
      return text;
    }
    int budget = maxBytes - 3;
    int bytes = 0;
    int end = 0;
    while (end < text.length()) {
      int codePoint = text.codePointAt(end);
      int size = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8).length;
      if (bytes + size > budget) {
        break;
      }
      bytes += size;
      end += Character.charCount(codePoint);
    }
    return text.substring(0, end) + "...";
  }
}
