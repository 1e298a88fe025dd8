package dev.pubsubclickhouse.replay.table;

import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteRecord;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import dev.pubsubclickhouse.messages.payload.SchemaUnavailableException;
import dev.pubsubclickhouse.messages.tables.Route;

/**
 * A dead letter on its way back: the message it was, encoded by the push service's encoder (so its
 * rows and {@code _pubsub_*} columns are what a push would have written), with the same identity
 * (subscription and message id) and so the same deduplication tokens and, in the exactly-once
 * layout, the same keys. A message of a topic with a Pub/Sub schema is read with its revision. It
 * goes to the table its route names; a message its route rejects (a table attribute naming a table
 * not allowed) stays a dead letter with the route's reason. One whose table or schema cannot be
 * read now is {@link #unavailable()}: a failure that may pass, as for the service (503), so it is
 * not written at all.
 */
final class ReplayedMessage implements WriteRecord {
  private final StoredDeadLetter stored;
  private final Route route;
  private final PubSubMessage message;
  private final MessageEncoder encoder;
  private final PayloadFormat format;
  private final String unavailable;
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
    String why = route.unavailable();
    // Like the service, a message routed nowhere is dead-lettered without fetching its schema.
    if (why == null && !route.isRejected()) {
      try {
        read = formats.of(message.attributes());
      } catch (SchemaUnavailableException e) {
        why = e.getMessage();
      }
    }
    this.format = read;
    this.unavailable = why;
  }

  StoredDeadLetter stored() {
    return stored;
  }

  Route route() {
    return route;
  }

  /** Why it cannot be replayed now (its table's or its schema's failure), or null. */
  String unavailable() {
    return unavailable;
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
      } else if (unavailable != null) {
        throw new IllegalStateException("not to be written now: " + unavailable);
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
