package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;
import java.util.List;

/**
 * PAYLOAD_FORMAT=debezium: a message's data read as a change event, into the rows it writes ({@link
 * ChangeRows}). A change that a truncate or re-snapshot this instance applied has superseded writes
 * nothing. Thread-safe.
 */
public final class ChangeFormat implements PayloadFormat {
  private final ChangeEventReader reader;
  private final TruncateMarks marks;

  public ChangeFormat(ChangeEventReader reader, TruncateMarks marks) {
    this.reader = reader;
    this.marks = marks;
  }

  /** The rows of a message: its record key may be in its ordering key or attributes. */
  public List<JsonNode> rows(byte[] data, PubSubMessage message) throws PayloadRejectedException {
    ChangeEvent event = reader.read(data, message);
    if (event.kind() != ChangeEvent.Kind.SKIPPED && marks.superseded(event)) {
      return List.of();
    }
    return ChangeRows.of(event);
  }

  @Override
  public List<JsonNode> rows(byte[] data) throws PayloadRejectedException {
    return rows(data, (PubSubMessage) null);
  }
}
