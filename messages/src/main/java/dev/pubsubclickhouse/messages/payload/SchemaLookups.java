package dev.pubsubclickhouse.messages.payload;

import java.time.Duration;

/**
 * How the service treats Pub/Sub's schema service: how long a schema it may not read is answered
 * 503 before its messages are dead-lettered, and how many lookups one instance makes a minute.
 *
 * @param deniedGrace how long after the first PERMISSION_DENIED a message is still answered 503:
 *     IAM grants take minutes to propagate after a deploy
 * @param perMinute lookups one instance makes a minute at most; a message whose schema would need
 *     one more is answered 503
 */
public record SchemaLookups(Duration deniedGrace, int perMinute) {
  public static final SchemaLookups DEFAULT = new SchemaLookups(Duration.ofMinutes(10), 60);

  public SchemaLookups {
    if (deniedGrace.isNegative() || perMinute < 1) {
      throw new IllegalArgumentException("a negative grace or fewer than 1 lookup a minute");
    }
  }
}
