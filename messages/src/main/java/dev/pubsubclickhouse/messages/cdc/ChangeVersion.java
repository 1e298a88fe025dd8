package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;

/**
 * The version of a change: an unsigned 64-bit number that orders the changes of one row as the
 * source's log does, taken from the log position and never from a clock, so that a
 * ReplacingMergeTree keeps the latest whatever order the changes arrive in.
 *
 * <ul>
 *   <li>Postgres: the change's LSN ({@code source.lsn}). Two changes of one row are ordered by
 *       their LSN: the second waits for the first's row lock, so it is written to the WAL after the
 *       first committed. Snapshot reads carry the snapshot's LSN.
 *   <li>MySQL: {@code (binlog file index, pos + row)}. {@code pos} is where the rows event starts
 *       and {@code row} the row's place in that event; row r is at least r bytes into the event, so
 *       {@code pos + row} stays below the next event's position and sorts as the binlog does. The
 *       file index (the digits after the last dot of {@code source.file}) takes 20 bits, above 36
 *       bits of {@code pos + row}, so a rollover to the next file sorts after every position of the
 *       previous one.
 * </ul>
 *
 * CDC_VERSION_EPOCH (0 to 255) is put in the top 8 bits: raise it when a source's positions start
 * over (a new Postgres cluster restored from a dump, a MySQL server whose binlog index was reset),
 * so that its changes sort after every change of the old one.
 */
public final class ChangeVersion {
  static final int EPOCH_BITS = 8;
  static final int POSITION_BITS = 64 - EPOCH_BITS;
  static final int MYSQL_OFFSET_BITS = 36;
  static final int MYSQL_FILE_BITS = POSITION_BITS - MYSQL_OFFSET_BITS;
  public static final int MAX_EPOCH = (1 << EPOCH_BITS) - 1;

  private final long epochBits;

  public ChangeVersion(int epoch) {
    if (epoch < 0 || epoch > MAX_EPOCH) {
      throw new IllegalArgumentException("expected 0 to " + MAX_EPOCH + ", got " + epoch);
    }
    this.epochBits = (long) epoch << POSITION_BITS;
  }

  /**
   * The version of the change whose {@code source} block this is.
   *
   * @throws PayloadRejectedException when the position is missing or too large to be packed
   */
  public long of(String connector, JsonNode source) throws PayloadRejectedException {
    long position =
        switch (connector) {
          case "postgresql" -> postgres(source);
          case "mysql" -> mysql(source);
          default ->
              throw new PayloadRejectedException("connector " + connector + " has no version");
        };
    return epochBits | position;
  }

  private static long postgres(JsonNode source) throws PayloadRejectedException {
    long lsn = unsigned(source, "lsn");
    if (lsn >>> POSITION_BITS != 0) {
      throw new PayloadRejectedException(
          "source.lsn "
              + Long.toUnsignedString(lsn)
              + " needs more than "
              + POSITION_BITS
              + " bits");
    }
    return lsn;
  }

  private static long mysql(JsonNode source) throws PayloadRejectedException {
    JsonNode file = source.get("file");
    if (file == null || !file.isTextual()) {
      throw new PayloadRejectedException("source.file is missing: the binlog position is unknown");
    }
    String name = file.textValue();
    String digits = name.substring(name.lastIndexOf('.') + 1);
    long index;
    try {
      index = digits.isEmpty() ? -1 : Long.parseLong(digits);
    } catch (NumberFormatException e) {
      index = -1;
    }
    if (index < 0 || index >>> MYSQL_FILE_BITS != 0) {
      throw new PayloadRejectedException(
          "source.file '" + name + "' does not end in a binlog index below 2^" + MYSQL_FILE_BITS);
    }
    long offset =
        unsigned(source, "pos") + (source.hasNonNull("row") ? unsigned(source, "row") : 0);
    if (offset >>> MYSQL_OFFSET_BITS != 0) {
      throw new PayloadRejectedException(
          "source.pos + source.row " + offset + " needs more than " + MYSQL_OFFSET_BITS + " bits");
    }
    return index << MYSQL_OFFSET_BITS | offset;
  }

  private static long unsigned(JsonNode source, String field) throws PayloadRejectedException {
    JsonNode value = source.get(field);
    if (value == null
        || !value.canConvertToExactIntegral()
        || value.bigIntegerValue().signum() < 0
        || value.bigIntegerValue().bitLength() > 64) {
      throw new PayloadRejectedException(
          "source."
              + field
              + " is "
              + (value == null ? "missing" : value.toString())
              + ": the change's log position is unknown");
    }
    return value.bigIntegerValue().longValue();
  }
}
