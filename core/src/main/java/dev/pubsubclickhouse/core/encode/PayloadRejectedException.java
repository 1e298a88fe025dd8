package dev.pubsubclickhouse.core.encode;

/** A message payload that holds no rows we can read: not JSON, or not objects. */
public final class PayloadRejectedException extends Exception {
  public PayloadRejectedException(String message) {
    super(message, null, false, false);
  }
}
