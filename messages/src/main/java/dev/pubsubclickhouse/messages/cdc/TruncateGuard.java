package dev.pubsubclickhouse.messages.cdc;

import dev.pubsubclickhouse.core.schema.TableName;

/**
 * Applies a truncate (or a re-snapshot's end) at its position whatever the order of delivery and
 * whichever instance receives what: the target's rows below the truncate's version are deleted,
 * those written before the truncate arrived and those written after it.
 *
 * <p>A truncate writes its mark to the shared table first, then deletes. A batch of changes, once
 * its INSERT succeeded, reads its target's mark, and when a row it wrote is below the mark, runs
 * the same DELETE again. Only then are the messages acknowledged. Why no row below a mark survives,
 * with instance A applying a truncate at version 100 and instance B writing a change at 90:
 *
 * <pre>
 *   A: (1) INSERT mark 100    (2) DELETE WHERE __version < 100    (3) answer 204
 *   B: (a) INSERT row 90      (b) SELECT max(version) mark         (c) DELETE again if 90 < mark
 * </pre>
 *
 * Either (b) sees mark 100, and B deletes the row itself in (c); or (b) does not see it, so (1) was
 * not stored when (b) read, and (a) had returned before (b) began: the row was stored before (1),
 * and so before A's DELETE (2) began, which therefore deletes it (a lightweight DELETE covers every
 * part stored when it starts). Both (1) and (a) return only once stored: the INSERT of changes
 * waits for async inserts too, and (1) is an INSERT ... SELECT, never queued. A failure of (1),
 * (2), (b) or (c) answers 503, and Pub/Sub's redelivery runs the same steps again: the mark is a
 * row of the same version once more, the DELETE deletes nothing new, the INSERT of the change is
 * deduplicated by its token or replaced by ReplacingMergeTree.
 *
 * <p>The instance's {@link TruncateMarks} skips writing changes below a mark it has seen, which
 * saves an INSERT and a DELETE; the rule does not depend on it. Thread-safe.
 */
public final class TruncateGuard {
  private final TruncateMarkTable table;
  private final TruncateMarks seen;
  private final RowDeleter deleter;

  public TruncateGuard(TruncateMarkTable table, TruncateMarks seen, RowDeleter deleter) {
    this.table = table;
    this.seen = seen;
    this.deleter = deleter;
  }

  /**
   * A guard for a dry run: it remembers a truncate's version, so that the changes below it show as
   * not written, but stores no mark and deletes nothing.
   */
  public static TruncateGuard preview(TruncateMarks seen) {
    return new TruncateGuard(null, seen, null);
  }

  /**
   * A truncate of {@code target} at {@code version}: its mark, then its DELETE.
   *
   * @throws Exception when either failed; the truncate is then answered 503
   */
  public void truncate(TableName target, long version) throws Exception {
    if (table != null) {
      table.write(target, version);
      deleter.deleteBelow(target, version);
    }
    seen.deletedBelow(target, version);
  }

  /**
   * After the INSERT of changes into {@code target} succeeded, {@code lowest} the lowest version of
   * a change written: deletes them again when a truncate's mark is above it.
   *
   * @throws Exception when the mark could not be read or the DELETE failed; the changes are then
   *     answered 503
   */
  public void written(TableName target, long lowest) throws Exception {
    if (table == null) {
      return;
    }
    long mark = table.read(target);
    if (mark == 0) {
      return;
    }
    seen.deletedBelow(target, mark);
    if (Long.compareUnsigned(lowest, mark) < 0) {
      deleter.deleteBelow(target, mark);
    }
  }

  /** True when a change of {@code target} at {@code version} is below a mark seen already. */
  public boolean superseded(TableName target, long version) {
    return seen.superseded(target, version);
  }
}
