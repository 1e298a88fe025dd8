package dev.pubsubclickhouse.messages.tables;

import dev.pubsubclickhouse.core.schema.TableName;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Where one message goes: its table; or nowhere, with the reason it is dead-lettered (through the
 * default table's writer, which holds the dead-letter sinks); or not now, when the table's schema
 * could not be read for a reason that may pass.
 *
 * @param destination the table, or for a rejected message the default table whose writer
 *     dead-letters it; null when unavailable
 * @param rejection why the message goes to no table, or null
 * @param unavailable why the table cannot be known now, or null
 * @param changeVersion the version (unsigned) of the row change the message writes
 *     (PAYLOAD_FORMAT=debezium), which a truncate's mark is compared with once it is written; empty
 *     for any other message
 */
public record Route(
    Destination destination, String rejection, String unavailable, OptionalLong changeVersion) {
  public static Route to(Destination destination) {
    return new Route(Objects.requireNonNull(destination), null, null, OptionalLong.empty());
  }

  /** A row change at {@code version} (unsigned), to be written to {@code destination}. */
  public static Route change(Destination destination, long version) {
    return new Route(Objects.requireNonNull(destination), null, null, OptionalLong.of(version));
  }

  public static Route rejected(Destination deadLetterWriter, String reason) {
    return new Route(deadLetterWriter, Objects.requireNonNull(reason), null, OptionalLong.empty());
  }

  public static Route unavailable(String reason) {
    return new Route(null, null, Objects.requireNonNull(reason), OptionalLong.empty());
  }

  public boolean isRejected() {
    return rejection != null;
  }

  public boolean isUnavailable() {
    return unavailable != null;
  }

  /** The name of the destination's table: the table whose flow control the message is under. */
  public TableName tableName() {
    return destination.table().name();
  }
}
