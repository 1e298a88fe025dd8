package dev.pubsubclickhouse.messages.payload;

/** A message's schema could not be fetched now; Pub/Sub should deliver the message again later. */
public final class SchemaUnavailableException extends Exception {
  public SchemaUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
