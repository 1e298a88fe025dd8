package dev.pubsubclickhouse.function.sinks;

import java.util.List;

/** Somewhere failed messages are kept: the ClickHouse error table or a dead-letter topic. */
public interface ErrorSink {
  /** Stores every failure, or throws: then none of them counts as kept. */
  void write(List<FailedMessage> failures) throws Exception;

  String name();
}
