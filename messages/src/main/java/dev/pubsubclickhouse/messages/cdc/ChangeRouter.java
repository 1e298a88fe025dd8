package dev.pubsubclickhouse.messages.cdc;

import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.messages.MessageEvents;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import dev.pubsubclickhouse.messages.tables.Destination;
import dev.pubsubclickhouse.messages.tables.Route;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Routes a change event to the table CDC_TABLES maps its source table to, and applies a truncate or
 * a re-snapshot's end there: its mark is stored and the table's rows of a lower version are deleted
 * before the message is acknowledged (so a failed INSERT or DELETE is a 503, and Pub/Sub delivers
 * the message again); see {@link TruncateGuard}. A row change's route carries its version, which
 * the mark is compared with once the change is written. In a table that several source tables are
 * mapped to, the rows below a version are not one source table's: a truncate there is a dead
 * letter, and a snapshot's end writes its row and deletes nothing.
 *
 * <p>A message that cannot be read, of a source table not listed, or with a Pub/Sub schema (Avro or
 * Protocol Buffers) goes to the dead letters with the reason; one that carries no change goes to
 * the default table, where it writes no row. Thread-safe.
 */
public final class ChangeRouter {
  private final ChangeCapture capture;
  private final ChangeEventReader reader;
  private final PayloadDecompressor decompressor;
  private final TruncateGuard truncates;
  private final MessageEvents events;

  public ChangeRouter(
      ChangeCapture capture,
      ChangeEventReader reader,
      PayloadDecompressor decompressor,
      TruncateGuard truncates,
      MessageEvents events) {
    this.capture = capture;
    this.reader = reader;
    this.decompressor = decompressor;
    this.truncates = truncates;
    this.events = events;
  }

  /**
   * @param destinations a CDC_TABLES target's destination, opened already
   * @param fallback the default table's: what writes dead letters and takes skipped messages
   */
  public Route route(
      PubSubMessage message, Function<TableName, Destination> destinations, Destination fallback) {
    if (message.attributes().containsKey(PayloadFormats.SCHEMA_NAME)) {
      return Route.rejected(
          fallback,
          "the message has a Pub/Sub schema ("
              + message.attributes().get(PayloadFormats.SCHEMA_NAME)
              + "), and PAYLOAD_FORMAT=debezium reads Debezium's JSON change events only");
    }
    ChangeEvent event;
    try {
      event = reader.read(decompressor.decompress(message.data()), message);
    } catch (IOException | PayloadRejectedException e) {
      return Route.rejected(fallback, String.valueOf(e.getMessage()));
    } catch (RuntimeException e) {
      return Route.rejected(fallback, "the message could not be read: " + e);
    }
    if (event.kind() == ChangeEvent.Kind.SKIPPED) {
      events.changeSkipped(event.skipped());
      return Route.to(fallback);
    }
    TableName target = capture.tables().get(event.table().name());
    if (target == null) {
      return Route.rejected(
          fallback,
          "source table "
              + event.table()
              + " ("
              + event.table().connector()
              + ") is not one of CDC_TABLES ("
              + String.join(", ", capture.tables().keySet().stream().sorted().toList())
              + ")");
    }
    Destination destination = destinations.apply(target);
    if (event.kind() == ChangeEvent.Kind.TRUNCATE) {
      if (capture.deadLetterTruncates()) {
        return Route.rejected(
            destination, "op t (a truncate of " + event.table() + "): CDC_TRUNCATE=dead_letter");
      }
      List<String> others = otherSources(event, target);
      if (!others.isEmpty()) {
        return Route.rejected(
            destination,
            "op t (a truncate of "
                + event.table()
                + "): table "
                + target
                + " also takes the changes of "
                + String.join(", ", others)
                + ", whose rows a DELETE below its version would remove too (map each source"
                + " table to a table of its own; for Postgres partitions, publish them as their"
                + " root with publish_via_partition_root)");
      }
      return deleteBelow(event, destination);
    }
    // The rows below a snapshot's version in a table shared with other source tables are theirs
    // too: only the row is written.
    if (event.endsSnapshot() && otherSources(event, target).isEmpty()) {
      // The snapshot read every live row again at this version: a row below it is a ghost.
      Route deleted = deleteBelow(event, destination);
      return deleted.isRejected() || deleted.isUnavailable()
          ? deleted
          : Route.change(destination, event.version());
    }
    if (truncates.superseded(target, event.version())) {
      return Route.to(destination); // the format writes no row of it
    }
    return Route.change(destination, event.version());
  }

  /** What applies truncates' marks, shared by every CDC_TABLES target's destination. */
  public TruncateGuard truncates() {
    return truncates;
  }

  /** The source tables other than the event's whose changes {@code target} takes too. */
  private List<String> otherSources(ChangeEvent event, TableName target) {
    List<String> others = new ArrayList<>(capture.sourcesOf(target));
    others.remove(event.table().name());
    return others;
  }

  private Route deleteBelow(ChangeEvent event, Destination destination) {
    TableName table = destination.table().name();
    if (!destination.table().current().columns().contains(ChangeRow.VERSION)) {
      return Route.rejected(
          destination,
          "op "
              + event.op()
              + " of "
              + event.table()
              + " deletes the rows written before it, and table "
              + table
              + " has no "
              + ChangeRow.VERSION
              + " column to tell them by");
    }
    try {
      truncates.truncate(table, event.version());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Route.unavailable("interrupted while deleting the rows of " + table);
    } catch (Exception e) {
      return Route.unavailable(
          "the rows of "
              + table
              + " below version "
              + Long.toUnsignedString(event.version())
              + " could not be deleted: "
              + ClickHouseFailures.describe(e));
    }
    return Route.to(destination);
  }
}
