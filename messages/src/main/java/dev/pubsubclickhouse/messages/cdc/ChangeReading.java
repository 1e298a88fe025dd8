package dev.pubsubclickhouse.messages.cdc;

import dev.pubsubclickhouse.messages.MessageEvents;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;

/**
 * What PAYLOAD_FORMAT=debezium adds to a program's path of messages, built alike by the push
 * service and by replay: the router that sends a change to its table (and applies truncates), and
 * the format that reads its rows, sharing one reader and the truncates' marks.
 */
public record ChangeReading(ChangeRouter router, ChangeFormat format) {
  public static ChangeReading open(
      ChangeCapture capture,
      PayloadDecompressor decompressor,
      RowDeleter deleter,
      StoredValues stored,
      MessageEvents events) {
    ChangeEventReader reader = new ChangeEventReader(new ChangeVersion(capture.versionEpoch()));
    TruncateMarks marks = new TruncateMarks();
    return new ChangeReading(
        new ChangeRouter(capture, reader, decompressor, deleter, marks, events),
        new ChangeFormat(reader, marks, stored));
  }
}
