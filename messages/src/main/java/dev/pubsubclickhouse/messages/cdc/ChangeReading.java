package dev.pubsubclickhouse.messages.cdc;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.messages.MessageEvents;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;

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
    TruncateMarks marks = new TruncateMarks();
    TruncateGuard truncates =
        new TruncateGuard(
            TruncateMarkTable.open(client, capture.marksTable()),
            marks,
            new VersionedDeletes(client));
    return reading(capture, decompressor, client, events, marks, truncates);
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
