package dev.pubsubclickhouse.core.write;

import dev.pubsubclickhouse.core.insert.WaitedFor;

/**
 * What the writer keeps whole: all of a record's rows reach the target table in one INSERT, or the
 * record goes to the dead letters as one. A Pub/Sub message is a record (a JSON array in it is
 * several rows of one record); so is one source row of a backfill.
 */
public interface WriteRecord {
  /**
   * Who the record is, for deduplication tokens: the same on every delivery of the same record and
   * different for every other record the same table may receive (for Pub/Sub, the subscription and
   * the message id, since message ids are unique per topic only). Null when unknown: then an INSERT
   * that carries the record has no token.
   */
  String identity();

  /** The record's rows for {@code schema}; called again when the schema changed. */
  EncodedRows rowsFor(TargetTable.Snapshot schema);

  /** The record as a dead letter, with why it could not be written. */
  DeadLetter deadLetter(String reason);

  /**
   * True once nobody waits for the record any more (its source gave up on it and will send it
   * again, e.g. a push request answered 503 at its deadline): an INSERT that carries only such
   * records is not retried, since a retry that landed would store them a second time.
   */
  default boolean abandoned() {
    return false;
  }

  /**
   * The {@link System#nanoTime()} after which nobody waits for the record (a push request's answer
   * deadline): an INSERT attempt that carries only such records ends by the latest of them. {@link
   * WaitedFor#NO_END} when somebody waits however long it takes.
   */
  default long waitedForUntilNanos() {
    return WaitedFor.NO_END;
  }
}
