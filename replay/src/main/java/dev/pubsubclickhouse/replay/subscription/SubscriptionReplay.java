package dev.pubsubclickhouse.replay.subscription;

import com.google.api.core.ApiFuture;
import com.google.api.gax.grpc.GrpcCallContext;
import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.DeadlineExceededException;
import com.google.pubsub.v1.AcknowledgeRequest;
import com.google.pubsub.v1.ModifyAckDeadlineRequest;
import com.google.pubsub.v1.PubsubMessage;
import com.google.pubsub.v1.PullRequest;
import com.google.pubsub.v1.ReceivedMessage;
import com.google.pubsub.v1.SubscriptionName;
import com.google.pubsub.v1.TopicName;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.replay.DeadLetterFilter;
import dev.pubsubclickhouse.replay.ExitCode;
import dev.pubsubclickhouse.replay.RateLimit;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One replay from a dead-letter subscription to the source topic:
 *
 * <ol>
 *   <li>pull a batch, and hold it (ack deadline 600 s) so that rate-limited publishing does not
 *       outlast the subscription's ack deadline;
 *   <li>publish each message that passes the filter as its publisher published it ({@link
 *       RepublishedMessage}), and acknowledge each only once its publish succeeded;
 *   <li>hold the others until the run ends and then hand them back (ack deadline 0), so that every
 *       message is seen once and none is lost;
 *   <li>stop when the subscription gives nothing for the wait, or at the first failure: a message
 *       not published is handed back, never acknowledged.
 * </ol>
 *
 * A republished message is a new message with a new message id. One published but not acknowledged
 * (the run killed between the two) comes back and is published again by a later run.
 */
final class SubscriptionReplay {
  /** The longest ack deadline Pub/Sub allows: how long a run holds what it pulled. */
  private static final int HOLD_SECONDS = 600;

  /** The shortest time one pull is given. */
  private static final Duration MIN_PULL = Duration.ofSeconds(1);

  /**
   * @param batchSize messages per pull
   * @param pullWait how long a pull waits for messages before the run ends
   * @param dropAttributes attributes to leave out besides those dead-lettering added
   */
  record Settings(
      DeadLetterFilter filter,
      boolean dryRun,
      int batchSize,
      long limit,
      RateLimit rate,
      Duration pullWait,
      Set<String> dropAttributes) {

    static Builder builder() {
      return new Builder();
    }

    /** Builds {@link Settings}; no attribute is dropped unless named. */
    static final class Builder {
      private DeadLetterFilter filter;
      private boolean dryRun;
      private int batchSize;
      private long limit;
      private RateLimit rate;
      private Duration pullWait;
      private Set<String> dropAttributes = Set.of();

      private Builder() {}

      Builder filter(DeadLetterFilter filter) {
        this.filter = filter;
        return this;
      }

      Builder dryRun(boolean dryRun) {
        this.dryRun = dryRun;
        return this;
      }

      Builder batchSize(int batchSize) {
        this.batchSize = batchSize;
        return this;
      }

      Builder limit(long limit) {
        this.limit = limit;
        return this;
      }

      Builder rate(RateLimit rate) {
        this.rate = rate;
        return this;
      }

      Builder pullWait(Duration pullWait) {
        this.pullWait = pullWait;
        return this;
      }

      Builder dropAttributes(Set<String> dropAttributes) {
        this.dropAttributes = dropAttributes;
        return this;
      }

      Settings build() {
        return new Settings(filter, dryRun, batchSize, limit, rate, pullWait, dropAttributes);
      }
    }
  }

  private final PubSubClients clients;
  private final SubscriptionName subscription;
  private final TopicName topic;
  private final Settings settings;
  private final PrintStream out;

  /** Messages this run holds and hands back at its end: message id to its latest ack id. */
  private final Map<String, String> held = new LinkedHashMap<>();

  private final Set<String> republishedIds = new HashSet<>();
  private long republished;
  private long matchedInDryRun;

  SubscriptionReplay(
      PubSubClients clients,
      SubscriptionName subscription,
      TopicName topic,
      Settings settings,
      PrintStream out) {
    this.clients = clients;
    this.subscription = subscription;
    this.topic = topic;
    this.settings = settings;
    this.out = out;
  }

  /** Replays, says what it did, and returns the exit code. */
  int run() throws InterruptedException {
    while (republished + matchedInDryRun < settings.limit()) {
      List<ReceivedMessage> pulled;
      try {
        pulled = pull();
      } catch (ApiException e) {
        return stopped("cannot pull from " + subscription + ": " + describe(e), List.of());
      }
      if (pulled.isEmpty()) {
        break;
      }
      try {
        modifyAckDeadline(pulled.stream().map(ReceivedMessage::getAckId).toList(), HOLD_SECONDS);
      } catch (ApiException e) {
        return stopped(
            "cannot hold what was pulled from " + subscription + ": " + describe(e), pulled);
      }
      Integer code = handle(pulled);
      if (code != null) {
        return code;
      }
    }
    return finish();
  }

  /** Publishes what passes, holds the rest; null to go on, else the exit code. */
  private Integer handle(List<ReceivedMessage> pulled) throws InterruptedException {
    List<ReceivedMessage> toPublish = new ArrayList<>();
    List<String> lateAcks = new ArrayList<>();
    for (ReceivedMessage received : pulled) {
      PubsubMessage message = received.getMessage();
      String id = message.getMessageId();
      if (republishedIds.contains(id)) {
        // Published by this run already; Pub/Sub delivered it again before the ack took.
        lateAcks.add(received.getAckId());
      } else if (held.containsKey(id)) {
        held.put(id, received.getAckId());
      } else if (!passes(message)
          || settings.dryRun()
          || republished + matchedInDryRun + toPublish.size() >= settings.limit()) {
        if (settings.dryRun() && passes(message) && matchedInDryRun < settings.limit()) {
          matchedInDryRun++;
          out.println("would republish: " + describe(message));
        }
        held.put(id, received.getAckId());
      } else {
        toPublish.add(received);
      }
    }
    try {
      acknowledge(lateAcks);
    } catch (ApiException e) {
      return stopped("cannot acknowledge in " + subscription + ": " + describe(e), pulled);
    }
    return publish(toPublish);
  }

  private boolean passes(PubsubMessage message) {
    return settings
        .filter()
        .matches(
            deadLetteredAt(message),
            RepublishedMessage.error(message).orElse(null),
            message.getMessageId());
  }

  /** Publishes each, then acknowledges those published; null to go on, else the exit code. */
  private Integer publish(List<ReceivedMessage> messages) throws InterruptedException {
    List<ApiFuture<String>> published = new ArrayList<>(messages.size());
    for (ReceivedMessage received : messages) {
      settings.rate().acquire(1);
      published.add(
          clients.publisher.publish(
              RepublishedMessage.of(received.getMessage(), settings.dropAttributes())));
    }
    List<String> acks = new ArrayList<>();
    List<ReceivedMessage> failed = new ArrayList<>();
    Throwable failure = null;
    long deadline = System.nanoTime() + PubSubClients.PUBLISH_WAIT.toNanos();
    for (int i = 0; i < messages.size(); i++) {
      try {
        answer(published.get(i), deadline);
        acks.add(messages.get(i).getAckId());
        republishedIds.add(messages.get(i).getMessage().getMessageId());
      } catch (ExecutionException e) {
        failure = failure == null ? e.getCause() : failure;
        failed.add(messages.get(i));
      }
    }
    try {
      acknowledge(acks);
    } catch (ApiException e) {
      return stopped(
          acks.size()
              + " messages were published to "
              + topic
              + " but not acknowledged in "
              + subscription
              + " ("
              + describe(e)
              + "): they come back there, and a next run publishes them again",
          failed);
    }
    republished += acks.size();
    if (!acks.isEmpty()) {
      out.println("republished " + acks.size() + " (" + republished + " so far)");
    }
    if (failure != null) {
      return stopped("cannot publish to " + topic + ": " + describe(failure), failed);
    }
    return null;
  }

  /**
   * Waits for a publish's answer until {@code deadline} ({@link System#nanoTime()}). With message
   * ordering on, the client library retries a publish without end, whatever its retry settings say
   * (googleapis/java-pubsub#1702): a publish Pub/Sub never answers would hold the run for good.
   *
   * @throws ExecutionException when the publish failed, or had no answer by the deadline
   */
  static String answer(ApiFuture<String> published, long deadline)
      throws ExecutionException, InterruptedException {
    try {
      return published.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new ExecutionException(
          new TimeoutException(
              "no answer to a publish within " + PubSubClients.PUBLISH_WAIT.toSeconds() + " s"));
    }
  }

  private int finish() {
    String handedBack = handBack(List.of());
    if (republished + matchedInDryRun == 0) {
      out.println(
          "no dead letters to replay: none in "
              + subscription
              + " matches "
              + settings.filter().describe()
              + handedBack);
    } else if (settings.dryRun()) {
      out.println(
          "dry run: "
              + matchedInDryRun
              + " messages in "
              + subscription
              + " would be republished to "
              + topic
              + "; nothing was published or acknowledged"
              + handedBack);
    } else {
      out.println(
          "republished "
              + republished
              + " messages from "
              + subscription
              + " to "
              + topic
              + ", each acknowledged after its publish"
              + handedBack);
    }
    return ExitCode.DONE;
  }

  /**
   * Hands back what this run holds and {@code more} (ack deadline 0: deliverable again at once);
   * says what it handed back.
   */
  private String handBack(Collection<ReceivedMessage> more) {
    List<String> ackIds = new ArrayList<>(held.values());
    more.forEach(m -> ackIds.add(m.getAckId()));
    if (ackIds.isEmpty()) {
      return "";
    }
    try {
      modifyAckDeadline(ackIds, 0);
      return "; " + ackIds.size() + " messages left in " + subscription;
    } catch (ApiException e) {
      return "; "
          + ackIds.size()
          + " messages left in "
          + subscription
          + " could not be handed back ("
          + describe(e)
          + ") and return there within "
          + HOLD_SECONDS
          + " s";
    }
  }

  private int stopped(String why, Collection<ReceivedMessage> notPublished) {
    JsonLog.error(
        "replay stopped: "
            + why
            + ". Nothing not yet published was acknowledged (so far "
            + republished
            + " republished)"
            + handBack(notPublished),
        Map.of());
    return ExitCode.FAILED;
  }

  /**
   * What is there; empty when pulls have brought nothing for the whole wait (a pull may come back
   * empty or time out while messages are on their way).
   */
  private List<ReceivedMessage> pull() throws InterruptedException {
    PullRequest request =
        PullRequest.newBuilder()
            .setSubscription(subscription.toString())
            .setMaxMessages(settings.batchSize())
            .build();
    long deadline = System.nanoTime() + settings.pullWait().toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return List.of();
      }
      Duration timeout = Duration.ofNanos(Math.max(left, MIN_PULL.toNanos()));
      try {
        List<ReceivedMessage> received =
            clients
                .subscriber
                .pullCallable()
                .call(request, GrpcCallContext.createDefault().withTimeoutDuration(timeout))
                .getReceivedMessagesList();
        if (!received.isEmpty()) {
          return received;
        }
      } catch (DeadlineExceededException nothingYet) {
        // try again until the wait is over
      }
      Thread.sleep(Math.min(100, Math.max(0, (deadline - System.nanoTime()) / 1_000_000)));
    }
  }

  private void acknowledge(List<String> ackIds) {
    if (!ackIds.isEmpty()) {
      clients
          .subscriber
          .acknowledgeCallable()
          .call(
              AcknowledgeRequest.newBuilder()
                  .setSubscription(subscription.toString())
                  .addAllAckIds(ackIds)
                  .build());
    }
  }

  private void modifyAckDeadline(List<String> ackIds, int seconds) {
    if (!ackIds.isEmpty()) {
      clients
          .subscriber
          .modifyAckDeadlineCallable()
          .call(
              ModifyAckDeadlineRequest.newBuilder()
                  .setSubscription(subscription.toString())
                  .addAllAckIds(ackIds)
                  .setAckDeadlineSeconds(seconds)
                  .build());
    }
  }

  /** When it reached the dead-letter topic: its publish time there. */
  private static Instant deadLetteredAt(PubsubMessage message) {
    return Instant.ofEpochSecond(
        message.getPublishTime().getSeconds(), message.getPublishTime().getNanos());
  }

  private String describe(PubsubMessage message) {
    Set<String> dropped = RepublishedMessage.dropped(message, settings.dropAttributes());
    Set<String> kept = new TreeSet<>(message.getAttributesMap().keySet());
    kept.removeAll(dropped);
    return "message "
        + message.getMessageId()
        + " (dead-lettered "
        + deadLetteredAt(message)
        + ", "
        + message.getData().size()
        + " bytes, attributes "
        + kept
        + (message.getOrderingKey().isEmpty() ? "" : ", ordering key " + message.getOrderingKey())
        + ", leaving out "
        + new TreeSet<>(dropped)
        + RepublishedMessage.error(message).map(e -> "): " + e).orElse(")");
  }

  /** One line: the status and the server's message, or the innermost cause. */
  static String describe(Throwable failure) {
    Throwable innermost = failure;
    while (innermost.getCause() != null && innermost.getCause() != innermost) {
      innermost = innermost.getCause();
    }
    String message = String.valueOf(innermost.getMessage());
    if (failure instanceof ApiException api) {
      String code = api.getStatusCode().getCode().toString();
      message = message.startsWith(code) ? message : code + ": " + message;
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
