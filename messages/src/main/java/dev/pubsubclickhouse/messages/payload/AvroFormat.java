package dev.pubsubclickhouse.messages.payload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.core.encode.Utf8Bytes;
import dev.pubsubclickhouse.messages.MemoryCharge;
import java.io.EOFException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.ResolvingDecoder;
import org.apache.avro.util.Utf8;

/**
 * Avro messages, binary or in Avro's JSON encoding, read with the topic's record schema: one
 * message is one row, each field a column. Values become what the JSON type rules read: int and
 * long as numbers, float and double as numbers (NaN and infinities kept), string and enum as text,
 * bytes and fixed as the bytes, array, map and record as array and objects, a union as its branch;
 * logical types date as YYYY-MM-DD text, timestamps as ISO-8601 instants (local ones as ClickHouse
 * text in the column's zone), decimal exactly, uuid as text.
 */
final class AvroFormat extends SchemaFormat {
  /** How a message names the field that holds what it refuses. */
  private static final String FIELD = "field ";

  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final DateTimeFormatter LOCAL_SECONDS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss");

  /**
   * Avro's classic reader: the fast one, Avro's default, has no hooks for MessageReader's checks.
   */
  private static final GenericData CLASSIC_READER = new GenericData().setFastReaderEnabled(false);

  /** The types a row nests by, as JSON nests by objects and arrays. */
  private static final Set<Schema.Type> NESTING =
      EnumSet.of(Schema.Type.RECORD, Schema.Type.ARRAY, Schema.Type.MAP);

  /**
   * Heap per byte of data for what the decoder copies: a string's bytes, its text, a JSON
   * encoding's text.
   */
  private static final int BYTES_PER_DATA_BYTE = 4;

  private final Schema schema;

  private AvroFormat(String resource, Schema schema, boolean binary) {
    super(resource, binary, BYTES_PER_DATA_BYTE);
    this.schema = schema;
  }

  /**
   * @throws IllegalArgumentException when the definition is not an Avro record schema
   */
  static AvroFormat of(String resource, String definition, boolean binary) {
    Schema schema;
    try {
      schema = new Schema.Parser().parse(definition);
    } catch (AvroRuntimeException e) { // SchemaParseException, and AvroTypeException for a default
      throw new IllegalArgumentException("not an Avro schema: " + e.getMessage(), e);
    }
    if (schema.getType() != Schema.Type.RECORD) {
      throw new IllegalArgumentException(
          "the Avro schema is a " + schema.getType() + ", not a record: rows need named fields");
    }
    return new AvroFormat(resource, schema, binary);
  }

  /**
   * The strings and bytes the decoder copies are charged before it starts ({@link
   * #BYTES_PER_DATA_BYTE} per byte), its fields, items and records as it reads them ({@link
   * NodeCharge}).
   */
  @Override
  public List<JsonNode> rows(byte[] data, MemoryCharge memory) throws PayloadRejectedException {
    chargeDecoding(data, memory);
    Object datum;
    try {
      MessageReader reader = new MessageReader(data.length, new NodeCharge(memory));
      if (binary) {
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, null);
        datum = reader.read(null, new LengthBoundDecoder(decoder, data.length));
        if (!decoder.isEnd()) {
          throw new PayloadRejectedException(describe() + ": bytes left after the record");
        }
      } else {
        String text = jsonText(data);
        datum = reader.read(null, DecoderFactory.get().jsonDecoder(schema, text));
        requireOneMessage(text);
      }
    } catch (MemoryCharge.Refusal e) {
      throw e;
    } catch (EOFException e) {
      throw new PayloadRejectedException(describe() + ": the data ends inside the record");
    } catch (IOException | AvroRuntimeException | IllegalArgumentException e) {
      throw new PayloadRejectedException(describe() + ": " + e.getMessage());
    } catch (RuntimeException e) {
      // Binary data that is not this schema's can throw anything from deep in the decoder
      // (negative lengths, huge allocations): it is the data's fault either way.
      throw new PayloadRejectedException(describe() + ": " + e);
    }
    try {
      return List.of(value(datum, schema));
    } catch (AvroRuntimeException e) {
      throw new PayloadRejectedException(describe() + ": " + e.getMessage());
    }
  }

  /**
   * Avro's reader for one message, refusing what would cost more than the message's data is worth
   * or alter its text: nesting deeper than JSON payloads may nest (the reader recurses per level,
   * so deep data would overflow the stack); more array and map items than the data has bytes (items
   * of null or of an empty record take no bytes, so six bytes could claim 200,000,000 of them);
   * binary strings that are not UTF-8 (Avro would replace their bytes with U+FFFD).
   */
  private final class MessageReader extends GenericDatumReader<Object> {
    private final int dataBytes;
    private final NodeCharge nodes;
    private long itemsLeft;
    private int depth;
    private String field;

    MessageReader(int dataBytes, NodeCharge nodes) {
      super(schema, schema, CLASSIC_READER);
      this.dataBytes = dataBytes;
      this.nodes = nodes;
      this.itemsLeft = dataBytes;
    }

    @Override
    protected Object readRecord(Object old, Schema expected, ResolvingDecoder in)
        throws IOException {
      nodes.add();
      return super.readRecord(old, expected, in);
    }

    @Override
    protected Object readWithoutConversion(Object old, Schema expected, ResolvingDecoder in)
        throws IOException {
      boolean nests = NESTING.contains(expected.getType());
      if (nests && ++depth > JsonPayloads.MAX_NESTING_DEPTH) {
        throw new AvroRuntimeException(
            "nested deeper than " + JsonPayloads.MAX_NESTING_DEPTH + " levels");
      }
      Object value = super.readWithoutConversion(old, expected, in);
      if (nests) {
        depth--;
      }
      return value;
    }

    @Override
    protected void readField(
        Object record, Schema.Field f, Object old, ResolvingDecoder in, Object state)
        throws IOException {
      nodes.add();
      String outer = field;
      field = f.name();
      super.readField(record, f, old, in, state);
      field = outer;
    }

    @Override
    protected Object newArray(Object old, int size, Schema schema) {
      mayHold(size);
      return super.newArray(old, size, schema);
    }

    @Override
    protected void addToArray(Object array, long pos, Object e) {
      readItem();
      super.addToArray(array, pos, e);
    }

    @Override
    protected Object newMap(Object old, int size) {
      mayHold(size);
      return super.newMap(old, size);
    }

    @Override
    protected void addToMap(Object map, Object key, Object value) {
      readItem();
      super.addToMap(map, key, value);
    }

    /** One more array or map item: counted against the data's bytes, and charged as a node. */
    private void readItem() {
      mayHold(1);
      itemsLeft--;
      nodes.add();
    }

    /** Checked before a block is sized, so that its count cannot allocate more than the data. */
    private void mayHold(long items) {
      if (items > itemsLeft) {
        throw new AvroRuntimeException(
            "its arrays and maps claim more items than its " + dataBytes + " bytes hold");
      }
    }

    /**
     * Binary strings decoded strictly. JSON ones as parsed, since the text was checked whole: their
     * Utf8 bytes would hold '?' for a lone surrogate escape, which the row encoder refuses as it
     * is.
     */
    @Override
    protected Object readString(Object old, Schema expected, Decoder in) throws IOException {
      if (!binary) {
        return in.readString();
      }
      Utf8 text = in.readString(null);
      return Utf8Bytes.text(text.getBytes(), text.getByteLength())
          .orElseThrow(
              () -> new AvroRuntimeException(FIELD + field + " holds a string that is not UTF-8"));
    }
  }

  @Override
  String describe() {
    return "data does not decode as Avro ("
        + (binary ? "binary" : "JSON")
        + ") of schema "
        + resource;
  }

  static JsonNode value(Object value, Schema schema) {
    LogicalType logical = schema.getLogicalType();
    switch (schema.getType()) {
      case NULL:
        return NODES.nullNode();
      case BOOLEAN:
        return NODES.booleanNode((Boolean) value);
      case INT:
        // A date as YYYY-MM-DD: as a number of days, a DateTime column would read it as seconds.
        return logical instanceof LogicalTypes.Date
            ? NODES.textNode(LocalDate.ofEpochDay((Integer) value).toString())
            : NODES.numberNode((Integer) value);
      case LONG:
        return longValue((Long) value, logical);
      case FLOAT:
        return NODES.numberNode((Float) value);
      case DOUBLE:
        return NODES.numberNode((Double) value);
      case STRING:
        return NODES.textNode((String) value);
      case ENUM:
        return NODES.textNode(((GenericEnumSymbol<?>) value).toString());
      case BYTES:
        return bytesValue(bytes((ByteBuffer) value), logical);
      case FIXED:
        return bytesValue(((GenericFixed) value).bytes(), logical);
      case ARRAY:
        ArrayNode array = NODES.arrayNode();
        for (Object element : (Collection<?>) value) {
          array.add(value(element, schema.getElementType()));
        }
        return array;
      case MAP:
        ObjectNode map = NODES.objectNode();
        for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
          map.set((String) entry.getKey(), value(entry.getValue(), schema.getValueType()));
        }
        return map;
      case RECORD:
        IndexedRecord record = (IndexedRecord) value;
        ObjectNode object = NODES.objectNode();
        for (Schema.Field field : schema.getFields()) {
          try {
            object.set(field.name(), value(record.get(field.pos()), field.schema()));
          } catch (AvroRuntimeException e) {
            // Named by the innermost field that holds it.
            throw e.getMessage().startsWith(FIELD)
                ? e
                : new AvroRuntimeException(FIELD + field.name() + " " + e.getMessage());
          }
        }
        return object;
      case UNION:
        int branch = GenericData.get().resolveUnion(schema, value);
        return value(value, schema.getTypes().get(branch));
      default:
        throw new IllegalStateException("Avro type " + schema.getType());
    }
  }

  private static JsonNode longValue(long value, LogicalType logical) {
    if (logical instanceof LogicalTypes.TimestampMillis) {
      return NODES.textNode(Instant.ofEpochMilli(value).toString());
    }
    if (logical instanceof LogicalTypes.TimestampMicros) {
      return NODES.textNode(instant(value, 1_000_000).toString());
    }
    if (logical instanceof LogicalTypes.TimestampNanos) {
      return NODES.textNode(instant(value, 1_000_000_000).toString());
    }
    if (logical instanceof LogicalTypes.LocalTimestampMillis) {
      return NODES.textNode(localText(Instant.ofEpochMilli(value)));
    }
    if (logical instanceof LogicalTypes.LocalTimestampMicros) {
      return NODES.textNode(localText(instant(value, 1_000_000)));
    }
    if (logical instanceof LogicalTypes.LocalTimestampNanos) {
      return NODES.textNode(localText(instant(value, 1_000_000_000)));
    }
    return NODES.numberNode(value);
  }

  private static Instant instant(long value, long perSecond) {
    return Instant.ofEpochSecond(
        Math.floorDiv(value, perSecond),
        Math.floorMod(value, perSecond) * (1_000_000_000 / perSecond));
  }

  /** {@code 2026-01-15 12:34:56.789}: ClickHouse's text form, read in the column's time zone. */
  private static String localText(Instant instant) {
    LocalDateTime local = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    String text = LOCAL_SECONDS.format(local);
    if (local.getNano() == 0) {
      return text;
    }
    String fraction = String.format("%09d", local.getNano()).replaceAll("0+$", "");
    return text + "." + fraction;
  }

  /**
   * @throws AvroRuntimeException ("holds …") for a decimal of no bytes: two's complement needs one
   */
  private static JsonNode bytesValue(byte[] bytes, LogicalType logical) {
    if (logical instanceof LogicalTypes.Decimal decimal) {
      if (bytes.length == 0) {
        throw new AvroRuntimeException("holds a decimal of no bytes");
      }
      return NODES.numberNode(new BigDecimal(new BigInteger(bytes), decimal.getScale()));
    }
    if (logical instanceof LogicalTypes.Uuid && bytes.length == 16) {
      ByteBuffer uuid = ByteBuffer.wrap(bytes);
      return NODES.textNode(new UUID(uuid.getLong(), uuid.getLong()).toString());
    }
    return NODES.binaryNode(bytes);
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }
}
