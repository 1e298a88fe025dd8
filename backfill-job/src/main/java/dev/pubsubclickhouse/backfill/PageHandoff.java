package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.backfill.progress.JobLog;
import dev.pubsubclickhouse.backfill.source.ReadUnit;
import dev.pubsubclickhouse.backfill.write.EncodedPage;
import dev.pubsubclickhouse.backfill.write.PageWriter;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteEvents;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place this job hands an encoded page to the write path (core's {@link TableWriter}, the
 * push service's too): it inserts the page's rows, isolates and dead-letters the rows that cannot
 * be written, and says how many went where. Each read unit is a source of its own for the
 * deduplication tokens.
 */
final class PageHandoff {
  /** What became of one page's rows. */
  record Outcome(long written, long rejected, long deadLettered) {}

  /** Rejected rows logged one by one when there is no dead-letter sink to keep them. */
  private static final int LOGGED_REJECTIONS = 20;

  private final TargetTable table;
  private final ClickHouseInserter inserter;
  private final List<DeadLetterSink> sinks;
  private final WriteEvents events;
  private final Clock clock;
  private final JobLog log;
  private final Map<String, PageWriter> writers = new ConcurrentHashMap<>();
  private int loggedRejections;

  PageHandoff(
      TargetTable table,
      ClickHouseInserter inserter,
      List<DeadLetterSink> sinks,
      WriteEvents events,
      Clock clock,
      JobLog log) {
    this.table = table;
    this.inserter = inserter;
    this.sinks = List.copyOf(sinks);
    this.events = events;
    this.clock = clock;
    this.log = log;
  }

  /**
   * @throws PageWriter.PageNotWrittenException when ClickHouse or a dead-letter sink failed for a
   *     reason that may pass: the task stops, and its retry starts at this page
   */
  Outcome write(ReadUnit unit, EncodedPage page) throws PageWriter.PageNotWrittenException {
    PageWriter writer =
        writers.computeIfAbsent(
            unit.key(),
            key ->
                new PageWriter(
                    new TableWriter(table, inserter, sinks, events, "bigquery\n" + key),
                    key,
                    inserter.options().maxInsertBlockSize(),
                    clock));
    PageWriter.Result result = writer.write(page);
    for (String refusal : result.refusals()) {
      if (loggedRejections++ < LOGGED_REJECTIONS) {
        log.warning("row rejected", Map.of("reason", refusal));
      }
    }
    return new Outcome(
        result.written(), result.deadLettered() + result.refused(), result.deadLettered());
  }
}
