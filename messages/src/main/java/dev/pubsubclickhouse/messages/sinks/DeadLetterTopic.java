package dev.pubsubclickhouse.messages.sinks;

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
import dev.pubsubclickhouse.core.encode.Utf8Bytes;
import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import dev.pubsubclickhouse.messages.PubSubRetries;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Dead letters republished to a Pub/Sub topic, one message per dead letter: the original data and
 * attributes, plus {@code errorMessage}, {@code failedAt} and (when it had one) {@code orderingKey}
 * attributes and {@code deadLetterAdded} naming the ones added (the Dataflow template drops the
 * original attributes; this keeps them, and says which are its own, so that a replay is the same
 * message). The ordering key travels as an attribute: as the message's own key it would need a
 * publisher with message ordering, which pauses a key after a failed publish.
 */
public final class DeadLetterTopic implements DeadLetterSink {
  /**
   * A publish gives up after 10 s (the client's default is 10 minutes): the batch waiting on it
   * holds requests that Pub/Sub will otherwise time out, and a 503 lets Pub/Sub retry instead.
   */
  private static final RetrySettings RETRIES =
      PubSubRetries.within(Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(2));

  /** The longest a batch waits for its dead letters' publishes. */
  private static final Duration PUBLISH_WAIT = Duration.ofSeconds(15);

  /** Pub/Sub's limits: attribute values of at most 1024 bytes, at most 100 attributes. */
  static final int MAX_ATTRIBUTE_VALUE_BYTES = 1024;

  static final int MAX_ATTRIBUTES = 100;

  /**
   * Pub/Sub's limit on a publish request, less room for the request's topic name (at most 255
   * characters and the project's) and framing: the message, data and attributes, must fit in it.
   */
  static final int MAX_MESSAGE_BYTES = 10 * 1024 * 1024 - 1024;

  /** Why the message could not be written, clipped to 1024 UTF-8 bytes. */
  public static final String ERROR_MESSAGE = "errorMessage";

  /** When it failed, ISO-8601. */
  public static final String FAILED_AT = "failedAt";

  /** The original message's ordering key, when it had one. */
  public static final String ORDERING_KEY = "orderingKey";

  /**
   * The attributes this sink added, comma-separated: a replay removes exactly these (and this one)
   * and never an attribute of the publisher's that happens to have the same name.
   */
  public static final String ADDED = "deadLetterAdded";

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

  /**
   * Publishes them and waits until Pub/Sub has every one, at most 15 s and never past the time they
   * are waited for: a publish nobody would hear of is not made (it would be made again with the
   * redelivered message).
   */
  @Override
  public void write(List<DeadLetter> deadLetters, WaitedFor waitedFor) throws Exception {
    Duration wait = waitedFor.cap(PUBLISH_WAIT);
    List<ApiFuture<String>> published = new ArrayList<>(deadLetters.size());
    for (DeadLetter deadLetter : deadLetters) {
      published.add(publisher.publish(message(deadLetter)));
    }
    ApiFutures.allAsList(published).get(wait.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * The dead letter as a Pub/Sub message. The original attributes always go unchanged (a message
   * Pub/Sub delivered fits its limits, and a replay must be the same message). {@code orderingKey}
   * (first, so that it is the last to lose its room), {@code errorMessage} (the reason clipped to
   * 1024 UTF-8 bytes) and {@code failedAt} are added when the original has no attribute of that
   * name, and {@code deadLetterAdded} lists what was added; each only while the 100-attribute limit
   * leaves room for it and the list, so nothing is added without being listed. An original that has
   * a {@code deadLetterAdded} of its own gets nothing added, and neither does one that would then
   * exceed Pub/Sub's 10 MiB.
   */
  static PubsubMessage message(DeadLetter deadLetter) {
    PubsubMessage.Builder message =
        PubsubMessage.newBuilder()
            .setData(ByteString.copyFrom(deadLetter.data()))
            .putAllAttributes(deadLetter.attributes());
    if (message.containsAttributes(ADDED)) {
      return message.build();
    }
    List<String> added = new ArrayList<>(3);
    String orderingKey = deadLetter.origin().getOrDefault(DeadLetter.ORDERING_KEY, "");
    if (!orderingKey.isEmpty()) {
      putIfRoom(message, added, ORDERING_KEY, orderingKey);
    }
    putIfRoom(
        message,
        added,
        ERROR_MESSAGE,
        Utf8Bytes.clip(deadLetter.reason(), MAX_ATTRIBUTE_VALUE_BYTES));
    putIfRoom(message, added, FAILED_AT, deadLetter.failedAt().toString());
    if (added.isEmpty()) {
      return message.build();
    }
    message.putAttributes(ADDED, String.join(",", added));
    PubsubMessage withAdded = message.build();
    if (withAdded.getSerializedSize() <= MAX_MESSAGE_BYTES) {
      return withAdded;
    }
    // A message near the limit goes as it came: with ours, Pub/Sub would refuse it (and with it
    // the publish of every dead letter of its batch), again at each redelivery.
    for (String key : added) {
      message.removeAttributes(key);
    }
    return message.removeAttributes(ADDED).build();
  }

  /** Adds it when its name is free and there is room for it and the list of added ones. */
  private static void putIfRoom(
      PubsubMessage.Builder message, List<String> added, String key, String value) {
    if (!message.containsAttributes(key) && message.getAttributesCount() + 2 <= MAX_ATTRIBUTES) {
      message.putAttributes(key, value);
      added.add(key);
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
}
