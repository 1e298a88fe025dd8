package dev.pubsubclickhouse.function.pull;

import com.google.cloud.pubsub.v1.SubscriberShutdownSettings;
import java.time.Duration;

/**
 * What happens when, between SIGTERM and the end of SHUTDOWN_GRACE_SECONDS, in pull mode. The
 * service must have answered every message it holds before the client library stops waiting for
 * answers: the library nacks whatever is unanswered then, and a message written after that is
 * delivered again and written twice.
 *
 * <p>With a grace period of 10 s: the service writes its batches for up to 6 s and then answers the
 * rest (nack) at once, a pulled message's answer being a call; the library waits for answers until
 * 7 s (its timeout of 8 s less the second it keeps for its final nacks), then sends the last acks
 * and nacks, which have until 10 s.
 *
 * @param grace SHUTDOWN_GRACE_SECONDS, at least {@link #SHORTEST_GRACE}
 */
public record ShutdownTimeline(Duration grace) {
  /** What the grace period keeps back for sending the last acks once every message is answered. */
  private static final Duration LAST_ACKS = Duration.ofSeconds(2);

  /**
   * The client library stops waiting for answers this long before its shutdown timeout and nacks
   * every message still unanswered (FINAL_NACK_TIMEOUT in its MessageDispatcher).
   */
  private static final Duration LIBRARY_FINAL_NACKS = Duration.ofSeconds(1);

  /** Between the service's last answer and the library's final nacks. */
  private static final Duration ANSWER_MARGIN = Duration.ofSeconds(1);

  /** The shortest grace period that leaves the service one second to write its batches. */
  public static final Duration SHORTEST_GRACE =
      Duration.ofSeconds(1).plus(ANSWER_MARGIN).plus(LIBRARY_FINAL_NACKS).plus(LAST_ACKS);

  public ShutdownTimeline {
    if (grace.compareTo(SHORTEST_GRACE) < 0) {
      throw new IllegalArgumentException(
          "a grace period of " + grace + " is shorter than " + SHORTEST_GRACE);
    }
  }

  /**
   * How the subscriber stops: it waits for the messages it handed over to be answered, then nacks
   * the rest and sends the last acks and nacks. (With a zero timeout the client library would skip
   * all of that, and send no last ack or nack.)
   */
  SubscriberShutdownSettings subscriberSettings() {
    return SubscriberShutdownSettings.newBuilder()
        .setMode(SubscriberShutdownSettings.ShutdownMode.WAIT_FOR_PROCESSING)
        .setTimeout(grace.minus(LAST_ACKS))
        .build();
  }

  /** Until when, after SIGTERM, the client library waits for the service's answers. */
  Duration answersAwaitedUntil() {
    return subscriberSettings().getTimeout().minus(LIBRARY_FINAL_NACKS);
  }

  /** How long the service writes its batches; then it answers every message it holds. */
  Duration serviceWriting() {
    return answersAwaitedUntil().minus(ANSWER_MARGIN);
  }
}
