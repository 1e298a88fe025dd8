package dev.pubsubclickhouse.backfill.write;

import java.util.List;

/** Somewhere rows that cannot be written are kept with their reason. */
public interface DeadLetterSink {
  /**
   * Writes all of them, or throws: a dead letter that is not kept fails the job.
   *
   * @param token identifies this batch deterministically (for sinks that deduplicate)
   */
  void write(List<RejectedRow> rows, String token) throws Exception;

  String name();
}
