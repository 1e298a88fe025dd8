package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.backfill.progress.JobLog;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import dev.pubsubclickhouse.backfill.write.ColumnPlan;
import dev.pubsubclickhouse.backfill.write.DeadLetterSink;
import dev.pubsubclickhouse.backfill.write.DeduplicationTokens;
import dev.pubsubclickhouse.backfill.write.EncodedPage;
import dev.pubsubclickhouse.backfill.write.PageWriter;
import dev.pubsubclickhouse.backfill.write.RejectedRow;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.schema.TableName;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place this job hands an encoded page to the writer: it inserts the page's rows, keeps the
 * rows that could not be written in every dead-letter sink, and says how many went where.
 * Everything about how a page is inserted, split, retried and dead-lettered lives behind it.
 */
final class PageHandoff {
  /** What became of one page's rows. */
  record Outcome(long written, long rejected, long deadLettered) {}

  /** Rejected rows logged one by one when there is no dead-letter sink to keep them. */
  private static final int LOGGED_REJECTIONS = 20;

  private final ClickHouseInserter inserter;
  private final TableName table;
  private final ColumnPlan plan;
  private final List<DeadLetterSink> sinks;
  private final Clock clock;
  private final JobLog log;
  private final Map<String, PageWriter> writers = new ConcurrentHashMap<>();
  private int loggedRejections;

  PageHandoff(
      ClickHouseInserter inserter,
      TableName table,
      ColumnPlan plan,
      List<DeadLetterSink> sinks,
      Clock clock,
      JobLog log) {
    this.inserter = inserter;
    this.table = table;
    this.plan = plan;
    this.sinks = sinks;
    this.clock = clock;
    this.log = log;
  }

  /**
   * @throws Exception when the rows could not be written or a dead letter could not be kept
   */
  Outcome write(ReadUnit unit, EncodedPage page) throws Exception {
    DeduplicationTokens tokens = new DeduplicationTokens(unit.key());
    PageWriter writer =
        writers.computeIfAbsent(
            unit.key(), key -> new PageWriter(inserter, table, plan, tokens, clock));
    PageWriter.Result result = writer.write(page);
    List<RejectedRow> rejected = page.rejected();
    if (!result.refused().isEmpty()) {
      rejected = new ArrayList<>(rejected);
      rejected.addAll(result.refused());
    }
    keep(rejected, tokens.forRows(page.startIndex(), page.endIndex()));
    return new Outcome(result.written(), rejected.size(), sinks.isEmpty() ? 0 : rejected.size());
  }

  private void keep(List<RejectedRow> rejected, String token) {
    if (rejected.isEmpty()) {
      return;
    }
    for (DeadLetterSink sink : sinks) {
      try {
        sink.write(rejected, token);
      } catch (Exception e) {
        throw new IllegalStateException(
            "rejected rows could not be kept in " + sink.name() + ": " + BackfillJob.firstLine(e),
            e);
      }
    }
    if (sinks.isEmpty()) {
      for (RejectedRow row : rejected) {
        if (loggedRejections++ < LOGGED_REJECTIONS) {
          log.warning("row rejected", Map.of("position", row.position(), "reason", row.reason()));
        }
      }
    }
  }
}
