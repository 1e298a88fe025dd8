package dev.pubsubclickhouse.messages;

/**
 * What the message encoder reports as it reads messages, for metrics; every method may be empty.
 */
public interface MessageEvents {
  MessageEvents NONE = new MessageEvents() {};

  /** A message's data was read: {@code bytes} after decompression. */
  default void payloadRead(int bytes) {}

  /** Rows of a message were read and encoded. */
  default void rowsRead(int rows) {}

  /**
   * Rows were rejected: they do not fit their table, or their message could not be read or was
   * routed nowhere (one for the message).
   */
  default void rowsRejected(int rows) {}

  /** A message's Pub/Sub schema was looked up in the schema service. */
  default void schemaLookedUp() {}

  /** A schema lookup was refused: the instance made its SCHEMA_LOOKUPS_PER_MINUTE already. */
  default void schemaLookupRefused() {}
}
