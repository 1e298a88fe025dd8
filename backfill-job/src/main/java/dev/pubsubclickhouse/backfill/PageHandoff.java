package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.backfill.source.ReadUnit;
import dev.pubsubclickhouse.backfill.write.EncodedPage;
import dev.pubsubclickhouse.backfill.write.PageWriter;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.log.JsonLog;
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
 * deduplication tokens; rows an earlier run refused, written again, are a source of their own too
 * (their unit's, marked as such), so their INSERTs never share a token with the unit's pages.
 */
final class PageHandoff {
  /**
   * What became of one page's rows.
   *
   * @param rejected rows not written: dead-lettered, or refused with no sink to keep them
   * @param notWritten the indexes in the page of the rejected rows, ascending
   */
  record Outcome(long written, long rejected, long deadLettered, int[] notWritten) {}

  /** Rejected rows logged one by one when there is no dead-letter sink to keep them. */
  private static final int LOGGED_REJECTIONS = 20;

  private final TargetTable table;
  private final ClickHouseInserter inserter;
  private final List<DeadLetterSink> sinks;
  private final WriteEvents events;
  private final Clock clock;
  private final Map<String, PageWriter> writers = new ConcurrentHashMap<>();
  private int loggedRejections;

  PageHandoff(
      TargetTable table,
      ClickHouseInserter inserter,
      List<DeadLetterSink> sinks,
      WriteEvents events,
      Clock clock) {
    this.table = table;
    this.inserter = inserter;
    this.sinks = List.copyOf(sinks);
    this.events = events;
    this.clock = clock;
  }

  /**
   * @throws PageWriter.PageNotWrittenException when ClickHouse or a dead-letter sink failed for a
   *     reason that may pass: the task stops, and its retry starts at this page
   */
  Outcome write(ReadUnit unit, EncodedPage page) throws PageWriter.PageNotWrittenException {
    PageWriter writer =
        writers.computeIfAbsent(
            unit.key(),
            key -> pageWriter(key, new TableWriter(table, inserter, sinks, events, source(key))));
    return outcome(writer.write(page), true);
  }

  /**
   * Writes rows of unit {@code unitKey} that an earlier run refused. Rows refused again go to the
   * dead-letter sinks only when {@code deadLetter} (when the dead letters do not hold them yet);
   * else they are counted as refused, and stay where they are.
   *
   * @throws PageWriter.PageNotWrittenException as {@link #write}
   */
  Outcome writeRefused(String unitKey, EncodedPage page, boolean deadLetter)
      throws PageWriter.PageNotWrittenException {
    PageWriter writer =
        writers.computeIfAbsent(
            "refused\n" + deadLetter + "\n" + unitKey,
            key ->
                pageWriter(
                    unitKey,
                    new TableWriter(
                        table,
                        inserter,
                        deadLetter ? sinks : List.of(),
                        events,
                        source(unitKey) + "\nrefused before")));
    return outcome(writer.write(page), deadLetter);
  }

  private static String source(String unitKey) {
    return "bigquery\n" + unitKey;
  }

  private PageWriter pageWriter(String unitKey, TableWriter writer) {
    return new PageWriter(writer, unitKey, inserter.options().maxInsertBlockSize(), clock);
  }

  private Outcome outcome(PageWriter.Result result, boolean logRefusals) {
    if (logRefusals) {
      for (String refusal : result.refusals()) {
        if (loggedRejections++ < LOGGED_REJECTIONS) {
          JsonLog.warning("row rejected", Map.of("reason", refusal));
        }
      }
    }
    return new Outcome(
        result.written(),
        result.deadLettered() + result.refused(),
        result.deadLettered(),
        result.notWritten());
  }
}
