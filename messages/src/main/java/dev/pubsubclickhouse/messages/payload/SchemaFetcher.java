package dev.pubsubclickhouse.messages.payload;

import com.google.pubsub.v1.Schema;

/** Where schemas come from: Pub/Sub's schema service. */
@FunctionalInterface
public interface SchemaFetcher {
  /**
   * The schema, with its definition.
   *
   * @param resource {@code projects/P/schemas/S}, or {@code projects/P/schemas/S@REVISION} for one
   *     revision
   */
  Schema fetch(String resource) throws Exception;
}
