package dev.pubsubclickhouse.function.ingest;

/**
 * How a push request ends, and the HTTP status that tells Pub/Sub. Only 2xx is an ack; every other
 * status makes Pub/Sub redeliver, and after max_delivery_attempts dead-letter the message itself.
 */
public enum PushOutcome {
  /** Every row is in the target table. */
  STORED(204),
  /** It cannot be written, and the dead-letter sinks hold it. */
  DEAD_LETTERED(204),
  /** The body is not a Pub/Sub push request. */
  NOT_A_PUSH_REQUEST(400),
  /** No or an invalid push token. */
  UNAUTHENTICATED(401),
  /** A valid token from the wrong sender. */
  FORBIDDEN(403),
  /** Larger than any Pub/Sub message. */
  TOO_LARGE(413),
  /**
   * The message cannot be written and no dead-letter sink is configured: nothing of it was written;
   * Pub/Sub's own dead-letter policy takes it. The answer's body says why, as a dead letter would.
   */
  UNPROCESSABLE(422),
  /** More waiting than the service admits: try again soon. */
  OVERLOADED(429),
  /**
   * ClickHouse (or a dead-letter sink) failed for a reason that may pass, or we are shutting down.
   */
  UNAVAILABLE(503);

  private final int status;

  PushOutcome(int status) {
    this.status = status;
  }

  public int status() {
    return status;
  }

  public boolean acknowledged() {
    return status >= 200 && status < 300;
  }
}
