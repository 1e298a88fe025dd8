package dev.pubsubclickhouse.replay.table;

import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.MessageRecord;
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
final class ReplayedMessage extends MessageRecord {
  private final StoredDeadLetter stored;
  private final Route route;
  private final String unavailable;
  private String newReason;

  private ReplayedMessage(
      StoredDeadLetter stored,
      Route route,
      PubSubMessage message,
      MessageEncoder encoder,
      PayloadFormat format,
      String unavailable) {
    super(message, encoder, format);
    if (route.isRejected()) {
      // Its rows are the route's rejection, whatever the schema.
      useRows(null, EncodedRows.rejected(route.rejection()));
    }
    this.stored = stored;
    this.route = route;
    this.unavailable = unavailable;
  }

  static ReplayedMessage of(
      StoredDeadLetter stored, Route route, MessageEncoder encoder, PayloadFormats formats) {
    PubSubMessage message = stored.message();
    PayloadFormat format = null;
    String why = route.unavailable();
    // Like the service, a message routed nowhere is dead-lettered without fetching its schema.
    if (why == null && !route.isRejected()) {
      try {
        format = formats.of(message.attributes());
      } catch (SchemaUnavailableException e) {
        why = e.getMessage();
      }
    }
    return new ReplayedMessage(stored, route, message, encoder, format, why);
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
  public EncodedRows rowsFor(TargetTable.Snapshot schema) {
    if (!route.isRejected() && unavailable != null) {
      throw new IllegalStateException("not to be written now: " + unavailable);
    }
    return super.rowsFor(schema);
  }

  @Override
  public DeadLetter deadLetter(String reason) {
    newReason = reason;
    return super.deadLetter(reason);
  }

  /** Why it still does not fit, once the writer made it a dead letter again; else null. */
  String newReason() {
    return newReason;
  }
}
