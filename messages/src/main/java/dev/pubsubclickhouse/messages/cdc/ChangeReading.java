package dev.pubsubclickhouse.messages.cdc;

import dev.pubsubclickhouse.messages.MessageEvents;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;

/**
 * What PAYLOAD_FORMAT=debezium adds to a program's path of messages, built alike by the push
 * service and by replay: the router that sends a change to its table (and applies truncates), and
 * the format that reads its rows, sharing one reader and the truncates' marks.
 */
public record ChangeReading(ChangeRouter router, ChangeFormat format) {
  /**
   * @param marksTable the truncates' marks every instance shares (CDC_TRUNCATE_MARKS_TABLE)
   */
  public static ChangeReading open(
      ChangeCapture capture,
      PayloadDecompressor decompressor,
      RowDeleter deleter,
      TruncateMarkTable marksTable,
      StoredValues stored,
      MessageEvents events) {
    ChangeEventReader reader = new ChangeEventReader(new ChangeVersion(capture.versionEpoch()));
    TruncateMarks marks = new TruncateMarks();
    TruncateGuard truncates = new TruncateGuard(marksTable, marks, deleter);
    return new ChangeReading(
        new ChangeRouter(capture, reader, decompressor, truncates, events),
        new ChangeFormat(reader, capture, marks, stored));
  }
}
