package dev.pubsubclickhouse.function.envelope;

/** The request body is not a Pub/Sub push request: answered 400. */
public final class NotAPushRequestException extends Exception {
  public NotAPushRequestException(String message) {
    super(message, null, false, false);
  }
}
