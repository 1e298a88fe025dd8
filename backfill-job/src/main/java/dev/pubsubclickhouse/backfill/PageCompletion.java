package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.backfill.progress.Progress;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import dev.pubsubclickhouse.backfill.write.Checkpoints;
import dev.pubsubclickhouse.backfill.write.EncodedPage;
import dev.pubsubclickhouse.backfill.write.RowText;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What happens to each page once read and encoded, in order: its rows are written (or
 * dead-lettered) through the {@link PageHandoff}, the progress counts them, and only then is the
 * page recorded as done in the checkpoints, with the rows the table refused, so a retried task
 * never skips a page it did not finish and a later run can write the refused rows once the table
 * takes them.
 */
final class PageCompletion {
  private final PageHandoff handoff;
  private final Optional<Checkpoints> checkpoints;
  private final Progress progress;
  private final String origin;
  private final Supplier<String> targetVersion;

  /**
   * @param origin what the plan's units read (see {@link Checkpoints})
   * @param targetVersion the target's definition now, asked when a page has refused rows
   */
  PageCompletion(
      PageHandoff handoff,
      Optional<Checkpoints> checkpoints,
      Progress progress,
      String origin,
      Supplier<String> targetVersion) {
    this.handoff = handoff;
    this.checkpoints = checkpoints;
    this.progress = progress;
    this.origin = origin;
    this.targetVersion = targetVersion;
  }

  void complete(ReadUnit unit, EncodedPage page) throws Exception {
    PageHandoff.Outcome outcome = handoff.write(unit, page);
    progress.pageDone(outcome.written(), outcome.rejected(), outcome.deadLettered());
    if (checkpoints.isPresent()) {
      checkpoints
          .get()
          .record(
              new Checkpoints.PageRecord(
                  unit.key(),
                  origin,
                  page.startIndex(),
                  page.rowsRead(),
                  outcome.written(),
                  refused(page, outcome, false, targetVersion)));
    }
  }

  /**
   * A unit was read to its end: recorded when its length is known only now (a stream), so that a
   * later execution reading on the same read session knows it finished.
   */
  void unitRead(ReadUnit unit, long end) throws Exception {
    if (checkpoints.isPresent() && unit.knownRows() < 0) {
      checkpoints.get().recordEnd(unit.key(), origin, end);
    }
  }

  /**
   * The page's rows the write left out, as the checkpoints keep them.
   *
   * @param keptBefore the dead letters hold these rows already (rows refused before, refused again)
   */
  static Checkpoints.Refused refused(
      EncodedPage page,
      PageHandoff.Outcome outcome,
      boolean keptBefore,
      Supplier<String> targetVersion) {
    if (outcome.notWritten().length == 0) {
      return Checkpoints.Refused.NONE;
    }
    List<Long> positions = new ArrayList<>(outcome.notWritten().length);
    List<String> rows = new ArrayList<>(outcome.notWritten().length);
    for (int index : outcome.notWritten()) {
      positions.add(page.position(index));
      rows.add(RowText.write(page.rows().get(index)));
    }
    return new Checkpoints.Refused(
        positions,
        rows,
        keptBefore || outcome.deadLettered() == outcome.rejected(),
        targetVersion.get());
  }
}
