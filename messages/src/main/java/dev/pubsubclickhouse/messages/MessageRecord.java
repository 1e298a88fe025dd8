package dev.pubsubclickhouse.messages;

import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteRecord;
import dev.pubsubclickhouse.messages.payload.PayloadFormat;

/**
 * A Pub/Sub message as the writer's record: its identity, its rows as {@link MessageEncoder} makes
 * them for a table's schema (made again only when the schema changed), and its dead letter. The
 * push service's waiting messages and the replay's dead letters on their way back are both one, so
 * a replayed message's rows come from the same code as a push's, for the table as it is when the
 * replay runs (the replay adds no columns: a field no column takes goes where the service puts such
 * fields, or is left out).
 */
public abstract class MessageRecord implements WriteRecord {
  private final PubSubMessage message;
  private final MessageEncoder encoder;
  private final PayloadFormat format;
  private TargetTable.Snapshot encodedFor;
  private EncodedRows encoded;

  /**
   * @param format how its data is read; null when its rows are the ones given to {@link #useRows},
   *     whatever the schema (the route's rejection, or rows encoded once for a schema that never
   *     changes)
   */
  protected MessageRecord(PubSubMessage message, MessageEncoder encoder, PayloadFormat format) {
    this.message = message;
    this.encoder = encoder;
    this.format = format;
  }

  /** Takes rows encoded already, for {@code schema} (null: for none in particular). */
  protected final void useRows(TargetTable.Snapshot schema, EncodedRows rows) {
    encodedFor = schema;
    encoded = rows;
  }

  public final PubSubMessage message() {
    return message;
  }

  /** The rows for the schema it was last encoded for; null before the first. */
  protected final EncodedRows encoded() {
    return encoded;
  }

  @Override
  public final String identity() {
    return message.identity();
  }

  @Override
  public EncodedRows rowsFor(TargetTable.Snapshot schema) {
    if (schema != encodedFor && format != null) {
      encoded = encoder.encode(message, format, schema);
      encodedFor = schema;
    }
    return encoded;
  }

  @Override
  public DeadLetter deadLetter(String reason) {
    return encoder.deadLetter(message, identity(), reason);
  }
}
