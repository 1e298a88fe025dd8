package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.core.write.EncodedRows;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.tables.Destination;
import dev.pubsubclickhouse.messages.tables.Route;
import java.util.Arrays;
import java.util.List;

/** Messages for tests of what handles batches, already encoded as one one-byte row. */
public final class PendingMessages {
  private PendingMessages() {}

  public static PendingMessage of(String messageId, long enqueuedNanos) {
    return new PendingMessage(
        PubSubMessage.builder().messageId(messageId).build(),
        EncodedRows.of(new byte[] {1}, 0, 1, 1),
        enqueuedNanos);
  }

  /** One message for {@code table} per id, in order. */
  public static List<PendingMessage> allTo(TableName table, String... messageIds) {
    return Arrays.stream(messageIds).map(id -> to(table, id)).toList();
  }

  /** A message for {@code table}, for tests of what handles batches by table. */
  public static PendingMessage to(TableName table, String messageId) {
    Destination destination =
        new Destination(
            new TargetTable(
                table, name -> new TableSchema(name, List.of(ColumnDefinition.of("b", "UInt8")))),
            null);
    return new PendingMessage(
        PubSubMessage.builder().messageId(messageId).build(),
        null,
        Route.to(destination),
        null,
        null,
        EncodedRows.of(new byte[] {1}, 0, 1, 1));
  }
}
