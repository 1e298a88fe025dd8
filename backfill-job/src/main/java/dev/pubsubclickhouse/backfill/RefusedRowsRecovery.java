package dev.pubsubclickhouse.backfill;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.backfill.progress.Progress;
import dev.pubsubclickhouse.backfill.write.Checkpoints;
import dev.pubsubclickhouse.backfill.write.Checkpoints.RefusedPage;
import dev.pubsubclickhouse.backfill.write.EncodedPage;
import dev.pubsubclickhouse.backfill.write.PageEncoder;
import dev.pubsubclickhouse.backfill.write.RowText;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Writes the rows that earlier runs of the same source read but the target refused, once the target
 * may take them: the pages already done are not read again, so these rows would otherwise never
 * land. A page's refused rows are tried again when
 *
 * <ul>
 *   <li>the target's definition differs from the one that refused them (a column widened, a
 *       constraint dropped);
 *   <li>no dead-letter sink kept them (they are in neither the target nor the dead letters);
 *   <li>or the run asks for it ({@code RETRY_DEAD_LETTERS}).
 * </ul>
 *
 * They are taken from the checkpoints as they were read, encoded for the table as it is now and
 * written with deduplication tokens of their own (the rows and their unit, marked as refused
 * before), so a retried task sends the same tokens again and a deduplicating table drops what it
 * already took. Rows the dead letters already hold are not dead-lettered again when refused again;
 * a recovery record in the checkpoints says which rows of the page are still missing.
 */
final class RefusedRowsRecovery {
  /**
   * What this task did with the refused rows of earlier runs.
   *
   * @param pages pages whose refused rows were tried again
   * @param recovered rows written now
   * @param stillRefused rows tried again and refused again
   * @param leftAlone rows not tried: kept in the dead letters, refused by the same definition
   */
  record Result(long pages, long recovered, long stillRefused, long leftAlone) {
    boolean any() {
      return pages > 0 || leftAlone > 0;
    }
  }

  private final Checkpoints checkpoints;
  private final PageHandoff handoff;
  private final PageEncoder encoder;
  private final Progress progress;
  private final String origin;
  private final Supplier<String> targetVersion;
  private final boolean always;

  /**
   * @param origin what the plan reads: only refused rows of the same origin are this run's
   * @param always try every refused row again, whatever the target's definition
   */
  RefusedRowsRecovery(
      Checkpoints checkpoints,
      PageHandoff handoff,
      PageEncoder encoder,
      Progress progress,
      String origin,
      Supplier<String> targetVersion,
      boolean always) {
    this.checkpoints = checkpoints;
    this.handoff = handoff;
    this.encoder = encoder;
    this.progress = progress;
    this.origin = origin;
    this.targetVersion = targetVersion;
    this.always = always;
  }

  /** Tries this task's share of the refused pages again. */
  Result run() throws Exception {
    List<RefusedPage> pages = checkpoints.refusedPages(origin);
    if (pages.isEmpty()) {
      return new Result(0, 0, 0, 0);
    }
    String version = targetVersion.get();
    long tried = 0;
    long recovered = 0;
    long stillRefused = 0;
    long leftAlone = 0;
    for (RefusedPage page : pages) {
      if (page.kept() && !always && page.targetVersion().equals(version)) {
        leftAlone += page.refused();
        continue;
      }
      PageHandoff.Outcome outcome = retry(page, version);
      tried++;
      recovered += outcome.written();
      stillRefused += outcome.rejected();
    }
    return new Result(tried, recovered, stillRefused, leftAlone);
  }

  private PageHandoff.Outcome retry(RefusedPage page, String version) throws Exception {
    Checkpoints.Refused refused = checkpoints.refusedRows(origin, page);
    long[] positions = refused.positions().stream().mapToLong(Long::longValue).toArray();
    List<ObjectNode> rows = new ArrayList<>(positions.length);
    for (int i = 0; i < positions.length; i++) {
      try {
        rows.add(RowText.read(refused.rows().get(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(
            "checkpoint table "
                + checkpoints.table()
                + " holds a refused row of "
                + page.unit()
                + " at "
                + positions[i]
                + " that cannot be read: "
                + e.getMessage(),
            e);
      }
    }
    EncodedPage encoded = encoder.encode(positions, rows);
    // Rows the dead letters hold already are not sent there again.
    PageHandoff.Outcome outcome = handoff.writeRefused(page.unit(), encoded, !page.kept());
    progress.recovered(outcome.written());
    if (!page.kept()) {
      progress.pageDone(0, outcome.rejected(), outcome.deadLettered());
    }
    checkpoints.recordRecovery(
        new Checkpoints.PageRecord(
            page.unit(),
            origin,
            page.startIndex(),
            page.rowCount(),
            outcome.written(),
            PageCompletion.refused(encoded, outcome, page.kept(), () -> version)));
    return outcome;
  }
}
