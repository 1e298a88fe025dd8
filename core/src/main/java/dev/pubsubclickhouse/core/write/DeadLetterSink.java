package dev.pubsubclickhouse.core.write;

import java.util.List;

/**
 * Somewhere dead letters are kept: the ClickHouse dead-letter table, a Pub/Sub dead-letter topic, a
 * BigQuery table.
 */
public interface DeadLetterSink {
  /** Keeps every one of them, or throws: then none of them counts as kept. */
  void write(List<DeadLetter> deadLetters) throws Exception;

  String name();
}
