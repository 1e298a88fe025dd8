package dev.pubsubclickhouse.replay.table;

import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.WriteOutcome;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import dev.pubsubclickhouse.messages.tables.Destination;
import dev.pubsubclickhouse.messages.tables.Destinations;
import dev.pubsubclickhouse.replay.DeadLetterFilter;
import dev.pubsubclickhouse.replay.ExitCode;
import dev.pubsubclickhouse.replay.RateLimit;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One replay from the dead-letter table, page by page in the order the dead letters failed:
 *
 * <ol>
 *   <li>read a page of dead letters that pass the filter and failed before the run began (the dead
 *       letters the run itself makes are never read again);
 *   <li>write their messages with {@link TableWriter}, routed as the push service routes them (the
 *       table their table attribute names, when allowed, else the target table): each lands whole
 *       or, if it still does not fit, becomes a new dead letter with the new reason;
 *   <li>delete the rows of every message that landed either way, and of their copies (the same
 *       message with the same data and attributes, dead-lettered twice, is replayed once; a row an
 *       operator corrected is not a copy, and is replayed on its own);
 *   <li>stop at the first failure outside the rows (ClickHouse unreachable, grants): what was not
 *       written stays in the dead-letter table as it was.
 * </ol>
 *
 * A row is deleted only after its message is in the target table or in its new dead letter, so a
 * run that stops anywhere loses nothing; one stopped between the two leaves rows that a later run
 * writes again (once under FINAL in the exactly-once layout, whose keys are the message's own).
 */
final class TableReplay {
  /**
   * @param batchSize messages per INSERT
   * @param limit the most messages to replay
   */
  record Settings(
      DeadLetterFilter filter, boolean dryRun, int batchSize, long limit, RateLimit rate) {}

  private final DeadLetterRows rows;
  private final Destinations destinations;
  private final MessageEncoder encoder;
  private final PayloadFormats formats;
  private final Settings settings;
  private final Clock clock;
  private final PrintStream out;

  private final Map<TableName, Long> writtenTo = new LinkedHashMap<>();
  private long replayed;
  private long stay;
  private long copies;
  private long fromBackfill;

  TableReplay(
      DeadLetterRows rows,
      Destinations destinations,
      MessageEncoder encoder,
      PayloadFormats formats,
      Settings settings,
      Clock clock,
      PrintStream out) {
    this.rows = rows;
    this.destinations = destinations;
    this.encoder = encoder;
    this.formats = formats;
    this.settings = settings;
    this.clock = clock;
    this.out = out;
  }

  /** Replays, says what it did, and returns the exit code. */
  int run() throws InterruptedException {
    // Dead letters this run makes fail at or after its start; failed_at may be whole seconds.
    Instant until = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    List<String> missing = rows.missingColumns();
    if (!missing.isEmpty()) {
      out.println(
          "note: "
              + rows.table()
              + " has no column "
              + String.join(", ", missing)
              + ": replayed rows get what stack_trace keeps (sql/dead_letter_table.sql adds them)");
    }
    DeadLetterRows.Cursor cursor = DeadLetterRows.Cursor.START;
    while (replayed < settings.limit()) {
      DeadLetterRows.Page page;
      try {
        page = rows.page(settings.filter(), until, cursor, settings.batchSize());
      } catch (RuntimeException e) {
        return stopped("cannot read " + rows.table() + ": " + ClickHouseFailures.describe(e));
      }
      if (page.deadLetters().isEmpty()) {
        break;
      }
      cursor = page.next();
      List<ReplayedMessage> messages = messages(page.deadLetters());
      String unavailable = unavailable(messages);
      if (unavailable != null) {
        return stopped(unavailable);
      }
      settings.rate().acquire(messages.size());
      if (settings.dryRun()) {
        preview(messages);
        continue;
      }
      Integer code = replay(messages);
      if (code != null) {
        return code;
      }
    }
    return summary(until);
  }

  /** The page's messages within the limit; a backfill's dead letters are left as they are. */
  private List<ReplayedMessage> messages(List<StoredDeadLetter> page) {
    List<ReplayedMessage> messages = new ArrayList<>(page.size());
    for (StoredDeadLetter row : page) {
      if (row.fromBackfill()) {
        fromBackfill++;
        continue;
      }
      if (replayed == settings.limit()) {
        break;
      }
      ReplayedMessage message =
          ReplayedMessage.of(row, destinations.route(row.message()), encoder, formats);
      messages.add(message);
      replayed++;
      if (message.unavailable() != null) {
        break; // the run stops at it: the rest of the page need not be read
      }
    }
    return messages;
  }

  /** Writes one page's messages; null to go on, else the exit code. */
  private Integer replay(List<ReplayedMessage> messages) throws InterruptedException {
    // One INSERT per table, as the service writes a batch; a rejected route is dead-lettered by the
    // target table's writer.
    Map<Destination, List<ReplayedMessage>> byTable = new LinkedHashMap<>();
    for (ReplayedMessage message : messages) {
      byTable.computeIfAbsent(message.route().destination(), d -> new ArrayList<>()).add(message);
    }
    List<DeadLetterRows.Position> done = new ArrayList<>();
    Exception retryCause = null;
    for (Map.Entry<Destination, List<ReplayedMessage>> table : byTable.entrySet()) {
      List<ReplayedMessage> batch = table.getValue();
      TableWriter.Result result = table.getKey().write(batch, ReplayedMessage::route);
      for (int i = 0; i < batch.size(); i++) {
        ReplayedMessage message = batch.get(i);
        WriteOutcome outcome = result.outcomes().get(i);
        if (outcome == WriteOutcome.WRITTEN || outcome == WriteOutcome.DEAD_LETTERED) {
          done.addAll(message.stored().rows());
          copies += message.stored().rows().size() - 1;
          if (outcome == WriteOutcome.WRITTEN) {
            writtenTo.merge(table.getKey().table().name(), 1L, Long::sum);
          } else {
            stay++;
            out.println(
                "still does not fit: " + message.stored().describe() + ": " + message.newReason());
          }
        } else {
          retryCause = result.retryCause();
        }
      }
    }
    try {
      rows.delete(done);
    } catch (RuntimeException e) {
      return stopped(
          "the rows of "
              + done.size()
              + " replayed dead letters could not be removed from "
              + rows.table()
              + " ("
              + ClickHouseFailures.describe(e)
              + "): their messages are in "
              + byTable.keySet().stream()
                  .map(d -> d.table().name().toString())
                  .collect(Collectors.joining(" or "))
              + " or in a new dead letter, and a next replay writes them again");
    }
    if (retryCause != null) {
      return stopped("ClickHouse did not take a batch: " + ClickHouseFailures.describe(retryCause));
    }
    return null;
  }

  /** Says what one page's messages would do. */
  private void preview(List<ReplayedMessage> messages) {
    for (ReplayedMessage message : messages) {
      int rowCopies = message.stored().rows().size() - 1;
      if (rowCopies > 0) {
        copies += rowCopies;
        out.println(
            "would remove "
                + rowCopies
                + (rowCopies == 1 ? " copy of " : " copies of ")
                + message.stored().describe());
      }
      Destination destination = message.route().destination();
      EncodedRows encoded = message.rowsFor(destination.table().current());
      if (encoded.isRejected()) {
        stay++;
        out.println(
            "would still not fit: "
                + message.stored().describe()
                + ": "
                + JsonLog.withoutSecrets(encoded.rejection()));
      } else {
        writtenTo.merge(destination.table().name(), 1L, Long::sum);
        out.println(
            "would write "
                + encoded.rowCount()
                + (encoded.rowCount() == 1 ? " row" : " rows")
                + (destination == destinations.defaultDestination()
                    ? ": "
                    : " to " + destination.table().name() + ": ")
                + message.stored().describe());
      }
    }
  }

  private int summary(Instant until) {
    if (replayed == 0) {
      out.println(
          "no dead letters to replay: none in "
              + rows.table()
              + " matches "
              + settings.filter().describe()
              + " (failed before "
              + until
              + ")"
              + backfillNote());
      return ExitCode.DONE;
    }
    if (settings.dryRun()) {
      out.println(
          "dry run: "
              + replayed
              + " dead letters in "
              + rows.table()
              + " match; "
              + written()
              + " would be written"
              + whereWritten()
              + ", "
              + stay
              + " would still not fit, "
              + copies
              + " copies would be removed; nothing was written"
              + backfillNote());
    } else {
      out.println(
          "replayed "
              + replayed
              + " dead letters from "
              + rows.table()
              + ": "
              + written()
              + " written"
              + whereWritten()
              + ", "
              + stay
              + " still do not fit (in "
              + rows.table()
              + " with the new reason), "
              + copies
              + " copies removed"
              + backfillNote());
    }
    return stay > 0 ? ExitCode.SOME_STAY : ExitCode.DONE;
  }

  /** What the run left to the backfill, or nothing. */
  private String backfillNote() {
    return fromBackfill == 0
        ? ""
        : "; "
            + fromBackfill
            + " dead letters of a backfill left as they are (the backfill writes them when run"
            + " again)";
  }

  /** Why a message of the page cannot be replayed now, or null when every one can. */
  private static String unavailable(List<ReplayedMessage> messages) {
    for (ReplayedMessage message : messages) {
      if (message.unavailable() != null) {
        return message.stored().describe() + ": " + message.unavailable();
      }
    }
    return null;
  }

  private long written() {
    return writtenTo.values().stream().mapToLong(Long::longValue).sum();
  }

  /** " to T" for one table (the target when none), " (n to T1, m to T2)" for several. */
  private String whereWritten() {
    if (writtenTo.size() <= 1) {
      TableName only =
          writtenTo.isEmpty()
              ? destinations.defaultDestination().table().name()
              : writtenTo.keySet().iterator().next();
      return " to " + only;
    }
    return writtenTo.entrySet().stream()
        .sorted(Map.Entry.comparingByKey(Comparator.comparing(TableName::toString)))
        .map(e -> e.getValue() + " to " + e.getKey())
        .collect(Collectors.joining(", ", " (", ")"));
  }

  private int stopped(String why) {
    JsonLog.error(
        "replay stopped: "
            + why
            + ". Dead letters not replayed are still in "
            + rows.table()
            + " (so far "
            + written()
            + " written, "
            + stay
            + " still do not fit)",
        Map.of());
    return ExitCode.FAILED;
  }
}
