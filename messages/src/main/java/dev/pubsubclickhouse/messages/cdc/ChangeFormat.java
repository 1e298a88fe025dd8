package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.UnavailableException;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;
import java.util.List;

/**
 * PAYLOAD_FORMAT=debezium: a message's data read as a change event, into the rows it writes ({@link
 * ChangeRows}), a TOAST placeholder filled from the stored row when the event has no before value
 * for it ({@link StoredValues}). A change below a truncate's mark this instance has seen writes
 * nothing. Thread-safe.
 */
public final class ChangeFormat implements PayloadFormat {
  private final ChangeEventReader reader;
  private final ChangeCapture capture;
  private final TruncateMarks marks;
  private final StoredValues stored;

  public ChangeFormat(
      ChangeEventReader reader, ChangeCapture capture, TruncateMarks marks, StoredValues stored) {
    this.reader = reader;
    this.capture = capture;
    this.marks = marks;
    this.stored = stored;
  }

  /**
   * The rows of a message: its record key may be in its ordering key or attributes.
   *
   * @throws UnavailableException when a stored value it needs could not be read now
   */
  public List<JsonNode> rows(byte[] data, PubSubMessage message)
      throws PayloadRejectedException, UnavailableException {
    ChangeEvent event = reader.read(data, message);
    if (event.kind() != ChangeEvent.Kind.SKIPPED) {
      TableName target = capture.tables().get(event.table().name());
      if (target != null && marks.superseded(target, event.version())) {
        return List.of();
      }
    }
    return ChangeRows.of(event, stored);
  }

  @Override
  public List<JsonNode> rows(byte[] data) throws PayloadRejectedException {
    try {
      return rows(data, (PubSubMessage) null);
    } catch (UnavailableException e) {
      throw new PayloadRejectedException(e.getMessage());
    }
  }
}
