package dev.pubsubclickhouse.core.encode;

import com.clickhouse.data.ClickHouseColumn;
import com.clickhouse.data.ClickHouseDataType;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Encodes JSON objects as rows of one table in {@code RowBinaryWithDefaults}: fields are matched to
 * columns by exact name, or taken from the path a column is mapped to ({@link ColumnSources});
 * unknown fields are ignored, and a missing (or null) value takes the column's DEFAULT, else NULL,
 * else an empty Array or Map, else rejects the row.
 *
 * <p>Thread-safe: build one per table schema and share it.
 */
public final class RowEncoder {
  /** What a column gets when the row has no value for it. */
  private enum Absent {
    DEFAULT,
    NULL,
    EMPTY,
    REJECT
  }

  /**
   * @param source where the value is, or null for the row's field of the column's name
   * @param shown how a rejection names the column: its name and type, and its path when mapped
   */
  private record Slot(
      String name,
      String type,
      FieldPath source,
      String shown,
      ValueEncoder encoder,
      Absent whenMissing,
      Absent whenNull) {}

  private final Slot[] slots;
  private final List<String> columnNames;
  private final List<String> columnTypes;

  /** The row's fields some column takes: by name, or as the first field of its path. */
  private final Set<String> placedFields;

  private final boolean readsJsonAsString;
  private final boolean readsMessage;

  private RowEncoder(List<Slot> slots, boolean readsJsonAsString) {
    this.slots = slots.toArray(new Slot[0]);
    this.columnNames = slots.stream().map(Slot::name).toList();
    this.columnTypes = slots.stream().map(Slot::type).toList();
    Set<String> placed = new HashSet<>();
    for (Slot slot : slots) {
      if (slot.source == null) {
        placed.add(slot.name);
      } else if (!slot.source.inMessage()) {
        placed.add(slot.source.firstField());
      }
    }
    this.placedFields = Set.copyOf(placed);
    this.readsJsonAsString = readsJsonAsString;
    this.readsMessage = slots.stream().anyMatch(s -> s.source != null && s.source.inMessage());
  }

  /**
   * Plans the encoding of rows for {@code schema}. MATERIALIZED and ALIAS columns are left out of
   * the INSERT; so is a column of an unsupported type that has a DEFAULT. An unsupported type
   * without one stops here.
   */
  public static RowEncoder forTable(TableSchema schema) {
    return forTable(schema, ColumnSources.BY_NAME);
  }

  /** As {@link #forTable(TableSchema)}, a mapped column taking the value at its path. */
  public static RowEncoder forTable(TableSchema schema, ColumnSources sources) {
    List<Slot> slots = new ArrayList<>();
    boolean json = false;
    for (ColumnDefinition column : schema.columns()) {
      if (!column.defaultKind().insertable()) {
        continue;
      }
      ClickHouseColumn parsed = column.parsed();
      ValueEncoder encoder;
      try {
        encoder = ValueEncoders.forColumn(parsed);
      } catch (ValueEncoders.UnsupportedTypeException e) {
        if (column.hasDefault()) {
          continue;
        }
        throw new IllegalArgumentException(
            "column '"
                + column.name()
                + "' of "
                + schema.table()
                + " has type "
                + column.type()
                + ", which cannot be written (and it has no DEFAULT)");
      }
      json |= ValueEncoders.containsJson(parsed);
      // SimpleAggregateFunction(f, T) stores its values as T does, absent ones too.
      ClickHouseColumn stored =
          parsed.getDataType() == ClickHouseDataType.SimpleAggregateFunction
              ? parsed.getNestedColumns().get(0)
              : parsed;
      boolean nullable = stored.isNullable();
      boolean container =
          stored.getDataType() == ClickHouseDataType.Array
              || stored.getDataType() == ClickHouseDataType.Map;
      Absent whenMissing =
          column.hasDefault()
              ? Absent.DEFAULT
              : nullable ? Absent.NULL : container ? Absent.EMPTY : Absent.REJECT;
      Absent whenNull =
          nullable
              ? Absent.NULL
              : column.hasDefault() ? Absent.DEFAULT : container ? Absent.EMPTY : Absent.REJECT;
      FieldPath source = sources.of(column.name());
      String shown =
          "column '"
              + column.name()
              + "' ("
              + column.type()
              + ")"
              + (source == null ? "" : " from " + source);
      slots.add(
          new Slot(column.name(), column.type(), source, shown, encoder, whenMissing, whenNull));
    }
    if (slots.isEmpty()) {
      throw new IllegalArgumentException("table " + schema.table() + " has no insertable columns");
    }
    return new RowEncoder(slots, json);
  }

  /** The columns of the INSERT, in the order {@link #encode} writes them. */
  public List<String> columnNames() {
    return columnNames;
  }

  /** The types of {@link #columnNames()}, as ClickHouse spells them in {@code system.columns}. */
  public List<String> columnTypes() {
    return columnTypes;
  }

  /** True when the INSERT must set input_format_binary_read_json_as_string (a JSON column). */
  public boolean readsJsonAsString() {
    return readsJsonAsString;
  }

  /**
   * True when a column takes its value from the message ({@link FieldPath#inMessage}): rows must be
   * encoded with the message's object.
   */
  public boolean readsMessage() {
    return readsMessage;
  }

  /**
   * The row's fields that no column of the INSERT takes, in the row's order: what {@link #encode}
   * leaves out. A field a column's path starts with is taken. Separate from {@link #encode} so that
   * rows of a service that keeps no unknown field pay nothing for it; allocates only when there is
   * such a field.
   */
  public List<String> unplacedFields(JsonNode row) {
    List<String> unplaced = List.of();
    Iterator<String> names = row.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!placedFields.contains(name)) {
        if (unplaced.isEmpty()) {
          unplaced = new ArrayList<>(4);
        }
        unplaced.add(name);
      }
    }
    return unplaced;
  }

  /**
   * Appends one row to {@code out}. On rejection nothing is appended and the message names the
   * column, its type, an excerpt of the value and the reason.
   */
  public void encode(JsonNode row, RowBinaryOutput out) throws RowRejectedException {
    encode(row, out, false);
  }

  /**
   * As {@link #encode(JsonNode, RowBinaryOutput)}; with {@code absentTakesDefault}, a column the
   * row has no value (or null) for takes its DEFAULT (the type's default when it declares none)
   * where it would reject the row: a row that stands for a deleted source row names only its key.
   */
  public void encode(JsonNode row, RowBinaryOutput out, boolean absentTakesDefault)
      throws RowRejectedException {
    encode(row, null, out, absentTakesDefault);
  }

  /**
   * As {@link #encode(JsonNode, RowBinaryOutput, boolean)}, a column mapped to a path in the
   * message taking its value from {@code message}.
   *
   * @param message the object the paths in the message start from; null when {@link
   *     #readsMessage()} is false
   */
  public void encode(
      JsonNode row, JsonNode message, RowBinaryOutput out, boolean absentTakesDefault)
      throws RowRejectedException {
    if (!row.isObject()) {
      throw new RowRejectedException(
          null, "a row must be a JSON object, got " + NumericValues.kind(row));
    }
    int start = out.size();
    for (Slot slot : slots) {
      JsonNode value = slot.source == null ? row.get(slot.name) : slot.source.find(row, message);
      try {
        if (value == null) {
          writeAbsent(slot, absentTakesDefault ? Absent.DEFAULT : slot.whenMissing, out);
        } else if (value.isNull()) {
          writeAbsent(slot, absentTakesDefault ? Absent.DEFAULT : slot.whenNull, out);
        } else {
          out.writeByte(0);
          slot.encoder.encode(value, out);
        }
      } catch (ValueRejectedException e) {
        out.truncate(start);
        throw new RowRejectedException(
            slot.name, slot.shown + " rejects " + Excerpt.of(value) + ": " + e.getMessage());
      }
    }
  }

  private static void writeAbsent(Slot slot, Absent policy, RowBinaryOutput out)
      throws ValueRejectedException {
    switch (policy) {
      case DEFAULT -> out.writeByte(1);
      case NULL -> {
        out.writeByte(0);
        out.writeByte(1);
      }
      case EMPTY -> {
        out.writeByte(0);
        out.writeVarUInt(0);
      }
      case REJECT ->
          throw new ValueRejectedException("a value is required (no DEFAULT, not Nullable)");
    }
  }
}
