package dev.pubsubclickhouse.backfill.source;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Decodes the Avro rows of the BigQuery Storage Read API straight into the JSON values the core
 * encoder reads, the same values {@link CellValues} makes of a tabledata.list page: INT64 as a
 * long, NUMERIC/BIGNUMERIC as an exact decimal, TIMESTAMP as an ISO instant with its microseconds,
 * DATE, TIME and DATETIME as their text, BYTES as bytes, STRUCT as an object, ARRAY as an array (a
 * NULL array as an empty one). Whichever API reads a row, the same row reaches ClickHouse.
 */
public final class AvroRows {
  private static final JsonNodeFactory NODES = JsonPayloads.mapper().getNodeFactory();
  private static final DateTimeFormatter TIME_MICROS =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");

  private final Schema schema;
  private final List<Reader> fields;
  private BinaryDecoder decoder;

  private interface Reader {
    JsonNode read(BinaryDecoder in) throws IOException;
  }

  /**
   * @param schemaJson the read session's Avro schema: a record with one field per column
   */
  public AvroRows(String schemaJson) {
    this.schema = new Schema.Parser().parse(schemaJson);
    if (schema.getType() != Schema.Type.RECORD) {
      throw new IllegalArgumentException("the read session's Avro schema is not a record");
    }
    this.fields = schema.getFields().stream().map(f -> reader(f.schema())).toList();
  }

  /** Decodes {@code rowCount} rows from one ReadRowsResponse's serialized rows into {@code out}. */
  public void decode(byte[] rows, long rowCount, List<ObjectNode> out) throws IOException {
    decoder = DecoderFactory.get().binaryDecoder(rows, decoder);
    List<Schema.Field> names = schema.getFields();
    for (long i = 0; i < rowCount; i++) {
      ObjectNode row = NODES.objectNode();
      for (int f = 0; f < fields.size(); f++) {
        row.set(names.get(f).name(), fields.get(f).read(decoder));
      }
      out.add(row);
    }
    if (!decoder.isEnd()) {
      throw new IOException("a ReadRows block holds more bytes than its " + rowCount + " rows");
    }
  }

  private static Reader reader(Schema type) {
    String logical = type.getLogicalType() == null ? null : type.getLogicalType().getName();
    return switch (type.getType()) {
      case NULL ->
          in -> {
            in.readNull();
            return NullNode.getInstance();
          };
      case BOOLEAN -> in -> BooleanNode.valueOf(in.readBoolean());
      case INT ->
          "date".equals(logical)
              ? in -> TextNode.valueOf(LocalDate.ofEpochDay(in.readInt()).toString())
              : in -> LongNode.valueOf(in.readInt());
      case LONG -> longReader(logical);
      case FLOAT -> in -> DoubleNode.valueOf(in.readFloat());
      case DOUBLE -> in -> DoubleNode.valueOf(in.readDouble());
      case STRING -> in -> TextNode.valueOf(in.readString());
      case BYTES -> bytesReader(type);
      case RECORD -> recordReader(type);
      case ARRAY -> arrayReader(type);
      case UNION -> unionReader(type);
      default ->
          throw new IllegalArgumentException(
              "Avro type " + type.getType() + " is not one BigQuery sends");
    };
  }

  private static Reader longReader(String logical) {
    if ("timestamp-micros".equals(logical)) {
      return in -> TextNode.valueOf(micros(in.readLong()).toString());
    }
    if ("time-micros".equals(logical)) {
      return in -> TextNode.valueOf(timeText(in.readLong()));
    }
    return in -> LongNode.valueOf(in.readLong());
  }

  private static Reader bytesReader(Schema type) {
    if (type.getLogicalType() instanceof LogicalTypes.Decimal decimal) {
      int scale = decimal.getScale();
      return in -> {
        BigDecimal value = new BigDecimal(new BigInteger(bytes(in)), scale).stripTrailingZeros();
        // The REST API writes 100, not 1E+2: the same number of the same scale either way.
        return DecimalNode.valueOf(value.scale() < 0 ? value.setScale(0) : value);
      };
    }
    return in -> BinaryNode.valueOf(bytes(in));
  }

  private static Reader recordReader(Schema type) {
    List<Schema.Field> names = type.getFields();
    List<Reader> readers = names.stream().map(f -> reader(f.schema())).toList();
    return in -> {
      ObjectNode record = NODES.objectNode();
      for (int i = 0; i < readers.size(); i++) {
        record.set(names.get(i).name(), readers.get(i).read(in));
      }
      return record;
    };
  }

  private static Reader arrayReader(Schema type) {
    Reader element = reader(type.getElementType());
    return in -> {
      ArrayNode array = NODES.arrayNode();
      for (long n = in.readArrayStart(); n > 0; n = in.arrayNext()) {
        for (long i = 0; i < n; i++) {
          array.add(element.read(in));
        }
      }
      return array;
    };
  }

  private static Reader unionReader(Schema type) {
    List<Reader> branches = type.getTypes().stream().map(AvroRows::reader).toList();
    // A NULL array arrives as an empty one through REST: the same here.
    boolean nullableArray =
        type.getTypes().stream().anyMatch(t -> t.getType() == Schema.Type.ARRAY);
    return in -> {
      JsonNode value = branches.get(in.readIndex()).read(in);
      return nullableArray && value.isNull() ? NODES.arrayNode() : value;
    };
  }

  private static byte[] bytes(BinaryDecoder in) throws IOException {
    java.nio.ByteBuffer buffer = in.readBytes(null);
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  private static java.time.Instant micros(long micros) {
    return java.time.Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  /** TIME as the REST API writes it: {@code 12:34:56}, or with six fraction digits. */
  static String timeText(long micros) {
    LocalTime time = LocalTime.ofNanoOfDay(micros * 1_000L);
    return micros % 1_000_000L == 0
        ? time.format(DateTimeFormatter.ISO_LOCAL_TIME).substring(0, 8)
        : time.format(TIME_MICROS);
  }
}
