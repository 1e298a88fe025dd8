package dev.pubsubclickhouse.core.write;

import dev.pubsubclickhouse.core.insert.WaitedFor;
import java.util.List;

/**
 * Somewhere dead letters are kept: the ClickHouse dead-letter table, a Pub/Sub dead-letter topic, a
 * BigQuery table.
 */
public interface DeadLetterSink {
  /**
   * Keeps every one of them, or throws: then none of them counts as kept. Not tried again, nor
   * waited for beyond the time, once nobody waits for them ({@code waitedFor}).
   */
  void write(List<DeadLetter> deadLetters, WaitedFor waitedFor) throws Exception;

  String name();
}
