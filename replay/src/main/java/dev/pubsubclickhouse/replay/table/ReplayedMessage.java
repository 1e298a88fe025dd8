package dev.pubsubclickhouse.replay.table;

import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteRecord;
import dev.pubsubclickhouse.function.envelope.PushMessage;
import dev.pubsubclickhouse.function.ingest.MessageEncoder;
import dev.pubsubclickhouse.function.schemas.PayloadFormat;
import dev.pubsubclickhouse.function.schemas.PayloadFormats;
import dev.pubsubclickhouse.function.schemas.SchemaUnavailableException;
import dev.pubsubclickhouse.function.tables.Route;

/**
 * A dead letter on its way back: the message it was, encoded by the push service's encoder (so its
 * rows and {@code _pubsub_*} columns are what a push would have written), with the same identity
 * (subscription and message id) and so the same deduplication tokens and, in the exactly-once
 * layout, the same keys. A message of a topic with a Pub/Sub schema is read with its revision; one
 * whose schema cannot be fetched stays a dead letter, saying so. It goes to the table its route
 * names; a message its route rejects (a table attribute naming a table not allowed) stays a dead
 * letter with the route's reason.
 */
final class ReplayedMessage implements WriteRecord {
  private final StoredDeadLetter stored;
  private final Route route;
  private final PushMessage message;
  private final MessageEncoder encoder;
  private final PayloadFormat format;
  private final String unreadable;
  private TargetTable.Snapshot encodedFor;
  private EncodedRows encoded;
  private String newReason;

  ReplayedMessage(
      StoredDeadLetter stored, Route route, MessageEncoder encoder, PayloadFormats formats) {
    this.stored = stored;
    this.route = route;
    this.message = stored.message();
    this.encoder = encoder;
    PayloadFormat read = null;
    String why = null;
    try {
      read = formats.of(message.attributes());
    } catch (SchemaUnavailableException e) {
      why = e.getMessage();
    }
    this.format = read;
    this.unreadable = why;
  }

  StoredDeadLetter stored() {
    return stored;
  }

  Route route() {
    return route;
  }

  @Override
  public String identity() {
    return message.identity();
  }

  @Override
  public EncodedRows rowsFor(TargetTable.Snapshot schema) {
    if (schema != encodedFor) {
      if (route.isRejected()) {
        encoded = EncodedRows.rejected(route.rejection());
      } else if (format == null) {
        encoded = EncodedRows.rejected(unreadable);
      } else {
        encoded = encoder.encode(message, format, schema);
      }
      encodedFor = schema;
    }
    return encoded;
  }

  @Override
  public DeadLetter deadLetter(String reason) {
    newReason = reason;
    return encoder.deadLetter(message, identity(), reason);
  }

  /** Why it still does not fit, once the writer made it a dead letter again; else null. */
  String newReason() {
    return newReason;
  }
}
