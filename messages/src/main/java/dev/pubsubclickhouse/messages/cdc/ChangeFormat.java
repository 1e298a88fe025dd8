package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.UnavailableException;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;
import java.util.List;

/**
 * PAYLOAD_FORMAT=debezium: a message's data read as a change event, into the rows it writes ({@link
 * ChangeRows}), a TOAST placeholder filled from the stored row when the event has no before value
 * for it ({@link StoredValues}). A change that a truncate or re-snapshot this instance applied has
 * superseded writes nothing. Thread-safe.
 */
public final class ChangeFormat implements PayloadFormat {
  private final ChangeEventReader reader;
  private final TruncateMarks marks;
  private final StoredValues stored;

  public ChangeFormat(ChangeEventReader reader, TruncateMarks marks, StoredValues stored) {
    this.reader = reader;
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
    if (event.kind() != ChangeEvent.Kind.SKIPPED && marks.superseded(event)) {
      return List.of();
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
