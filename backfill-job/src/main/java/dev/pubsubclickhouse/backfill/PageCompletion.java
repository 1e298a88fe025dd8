package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.backfill.progress.Progress;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import dev.pubsubclickhouse.backfill.write.Checkpoints;
import dev.pubsubclickhouse.backfill.write.EncodedPage;
import java.util.Optional;

/**
 * What happens to each page once read and encoded, in order: its rows are written (or
 * dead-lettered) through the {@link PageHandoff}, the progress counts them, and only then is the
 * page recorded as done in the checkpoints, so a retried task never skips a page it did not finish.
 */
final class PageCompletion {
  private final PageHandoff handoff;
  private final Optional<Checkpoints> checkpoints;
  private final Progress progress;

  PageCompletion(PageHandoff handoff, Optional<Checkpoints> checkpoints, Progress progress) {
    this.handoff = handoff;
    this.checkpoints = checkpoints;
    this.progress = progress;
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
                  page.startIndex(),
                  page.rowsRead(),
                  outcome.written(),
                  outcome.rejected()));
    }
  }
}
