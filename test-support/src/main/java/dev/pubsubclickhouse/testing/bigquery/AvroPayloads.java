package dev.pubsubclickhouse.testing.bigquery;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/**
 * Rows as the Storage Read API sends them: the Avro schema BigQuery documents for a table's fields
 * (INT64 long, FLOAT64 double, NUMERIC and BIGNUMERIC decimal bytes, DATE date int, TIME and
 * TIMESTAMP micros longs, DATETIME a string of logical type datetime, STRUCT a record, REPEATED an
 * array, NULLABLE a union with null) and rows in tabledata.list form written in it with the Avro
 * library's own writer.
 */
public final class AvroPayloads {
  private AvroPayloads() {}

  /** The Avro schema of a table with these fields (tables.get's {@code schema.fields}). */
  public static Schema schema(JsonNode fields) {
    return record("__root__", fields);
  }

  /** Rows ({@code {"f":[{"v":...}]}}, as tabledata.list sends them) as Avro binary. */
  public static byte[] encode(Schema schema, List<JsonNode> rows) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
      GenericDatumWriter<Object> writer = new GenericDatumWriter<>(schema);
      for (JsonNode row : rows) {
        writer.write(record(schema, row), out);
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Schema record(String name, JsonNode fields) {
    List<Schema.Field> avroFields = new ArrayList<>();
    for (JsonNode field : fields) {
      Schema type = valueSchema(field);
      String mode = field.path("mode").asText("NULLABLE");
      if ("REPEATED".equals(mode)) {
        type = Schema.createArray(type);
      } else if ("NULLABLE".equals(mode)) {
        type = Schema.createUnion(Schema.create(Schema.Type.NULL), type);
      }
      avroFields.add(new Schema.Field(field.path("name").asText(), type));
    }
    return Schema.createRecord(name, null, "bigquery", false, avroFields);
  }

  private static Schema valueSchema(JsonNode field) {
    String type = field.path("type").asText();
    return switch (type) {
      case "INTEGER", "INT64" -> Schema.create(Schema.Type.LONG);
      case "FLOAT", "FLOAT64" -> Schema.create(Schema.Type.DOUBLE);
      case "BOOLEAN", "BOOL" -> Schema.create(Schema.Type.BOOLEAN);
      case "NUMERIC" -> LogicalTypes.decimal(38, 9).addToSchema(Schema.create(Schema.Type.BYTES));
      case "BIGNUMERIC" ->
          LogicalTypes.decimal(77, 38).addToSchema(Schema.create(Schema.Type.BYTES));
      case "BYTES" -> Schema.create(Schema.Type.BYTES);
      case "DATE" -> LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
      case "TIME" -> LogicalTypes.timeMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case "TIMESTAMP" ->
          LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
      case "DATETIME" -> {
        Schema datetime = Schema.create(Schema.Type.STRING);
        datetime.addProp("logicalType", "datetime");
        yield datetime;
      }
      case "RECORD", "STRUCT" -> record("__" + field.path("name").asText(), field.path("fields"));
      default -> {
        // STRING; JSON and GEOGRAPHY as text with their sqlType.
        Schema text = Schema.create(Schema.Type.STRING);
        if (!"STRING".equals(type)) {
          text.addProp("sqlType", type);
        }
        yield text;
      }
    };
  }

  private static GenericData.Record record(Schema schema, JsonNode row) {
    GenericData.Record record = new GenericData.Record(schema);
    JsonNode cells = row.path("f");
    for (Schema.Field field : schema.getFields()) {
      record.put(field.pos(), cell(field.schema(), cells.path(field.pos()).path("v")));
    }
    return record;
  }

  private static Object cell(Schema type, JsonNode value) {
    if (type.getType() == Schema.Type.UNION) {
      return value.isNull() || value.isMissingNode() ? null : cell(type.getTypes().get(1), value);
    }
    if (type.getType() == Schema.Type.ARRAY) {
      List<Object> elements = new ArrayList<>();
      if (value.isArray()) {
        for (JsonNode element : value) {
          elements.add(cell(type.getElementType(), element.path("v")));
        }
      }
      return elements;
    }
    if (type.getType() == Schema.Type.RECORD) {
      return record(type, value);
    }
    String text = value.asText();
    String logical = type.getLogicalType() == null ? null : type.getLogicalType().getName();
    return switch (type.getType()) {
      case LONG ->
          "time-micros".equals(logical)
              ? LocalTime.parse(text).toNanoOfDay() / 1_000L
              : Long.parseLong(text);
      case INT -> (int) LocalDate.parse(text).toEpochDay();
      case DOUBLE -> Double.parseDouble(text);
      case BOOLEAN -> Boolean.parseBoolean(text);
      case BYTES ->
          type.getLogicalType() instanceof LogicalTypes.Decimal decimal
              ? ByteBuffer.wrap(
                  new BigDecimal(text).setScale(decimal.getScale()).unscaledValue().toByteArray())
              : ByteBuffer.wrap(Base64.getDecoder().decode(text));
      default -> text;
    };
  }
}
