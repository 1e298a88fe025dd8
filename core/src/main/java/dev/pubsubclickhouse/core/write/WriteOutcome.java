package dev.pubsubclickhouse.core.write;

/** Where a record ended. */
public enum WriteOutcome {
  /** All its rows are in the target table. */
  WRITTEN,
  /** It cannot be written, and every dead-letter sink holds it. */
  DEAD_LETTERED,
  /** It cannot be written and no dead-letter sink is configured: nothing of it was written. */
  REFUSED,
  /**
   * Nothing of it is known to be written and it may succeed later: ClickHouse or a dead-letter sink
   * failed for a reason outside the record.
   */
  RETRY
}
