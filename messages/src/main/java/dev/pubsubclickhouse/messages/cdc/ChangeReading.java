package dev.pubsubclickhouse.messages.cdc;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.messages.MessageEvents;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What PAYLOAD_FORMAT=debezium adds to a program's path of messages, built alike by the push
 * service and by replay: the router that sends a change to its table (and applies truncates), and
 * the format that reads its rows, sharing one reader and the truncates' marks.
 */
public record ChangeReading(ChangeRouter router, ChangeFormat format) {
  /**
   * The reading whose truncates delete through {@code client} ({@link VersionedDeletes}) and keep
   * their marks in the shared table {@code capture.marksTable()} ({@link TruncateMarkTable}), and
   * whose unchanged TOASTed values are read from the stored rows there ({@link
   * LatestStoredValues}).
   */
  public static ChangeReading open(
      ChangeCapture capture,
      PayloadDecompressor decompressor,
      Client client,
      MessageEvents events) {
    TruncateMarkTable marksTable = TruncateMarkTable.open(client, capture.marksTable());
    requireGrants(client, capture);
    TruncateMarks marks = new TruncateMarks();
    TruncateGuard truncates = new TruncateGuard(marksTable, marks, new VersionedDeletes(client));
    return reading(capture, decompressor, client, events, marks, truncates);
  }

  /**
   * Refuses to open while the user lacks a grant that truncates and snapshot ends need, so that the
   * service stays unready naming it rather than answering 503 to the first of them. A server that
   * cannot answer CHECK GRANT (before ClickHouse 24.3) is not checked, with a warning.
   *
   * @throws IllegalStateException naming each missing grant, or when ClickHouse is unavailable
   */
  private static void requireGrants(Client client, ChangeCapture capture) {
    List<String> missing = new ArrayList<>();
    try {
      TruncateMarkTable.missingGrant(client, capture.marksTable(), true)
          .ifPresent(
              privilege ->
                  missing.add(
                      "GRANT " + privilege + " ON " + capture.marksTable() + " (the marks table)"));
      missing.addAll(DeleteGrants.missing(client, capture));
    } catch (Exception e) {
      // Anything else, an outage among them, is asked again while the service stays unready.
      if (!CheckGrant.unknownTo(e)) {
        throw new IllegalStateException(
            "the grants for truncates could not be checked: " + ClickHouseFailures.describe(e), e);
      }
      JsonLog.warning(
          "the grants for truncates and snapshot ends are not checked: the server cannot answer"
              + " CHECK GRANT",
          Map.of("error", ClickHouseFailures.describe(e)));
      return;
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "the ClickHouse user cannot apply truncates and snapshot ends (they delete the rows"
              + " below their version): "
              + String.join("; ", missing)
              + " (sql/grants.sql)");
    }
  }

  /**
   * The reading of a dry run: routed and read as {@link #open} does, but a truncate stores no mark
   * and deletes nothing, and the marks table is neither created nor read.
   */
  public static ChangeReading preview(
      ChangeCapture capture, PayloadDecompressor decompressor, Client client) {
    TruncateMarks marks = new TruncateMarks();
    return reading(
        capture, decompressor, client, MessageEvents.NONE, marks, TruncateGuard.preview(marks));
  }

  private static ChangeReading reading(
      ChangeCapture capture,
      PayloadDecompressor decompressor,
      Client client,
      MessageEvents events,
      TruncateMarks marks,
      TruncateGuard truncates) {
    StoredValues stored = new LatestStoredValues(client, capture);
    ChangeEventReader reader = new ChangeEventReader(new ChangeVersion(capture.versionEpoch()));
    return new ChangeReading(
        new ChangeRouter(capture, reader, decompressor, truncates, events),
        new ChangeFormat(reader, capture, marks, stored));
  }
}
