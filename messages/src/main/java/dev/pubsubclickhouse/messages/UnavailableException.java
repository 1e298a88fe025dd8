package dev.pubsubclickhouse.messages;

/**
 * A message that cannot be taken now for a reason that may pass (its table's schema, its Pub/Sub
 * schema or a new field's column could not be read or made): answered 503, so Pub/Sub delivers it
 * again, and nothing of it is written meanwhile.
 */
public final class UnavailableException extends Exception {
  public UnavailableException(String message, Throwable cause) {
    super(message, cause, false, false);
  }
}
