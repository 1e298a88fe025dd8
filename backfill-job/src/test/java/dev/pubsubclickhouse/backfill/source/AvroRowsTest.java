package dev.pubsubclickhouse.backfill.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** Avro rows of the Storage Read API become the same values as the REST API's cells. */
class AvroRowsTest {
  private static Schema nullable(Schema type) {
    return Schema.createUnion(Schema.create(Schema.Type.NULL), type);
  }

  @Test
  void eachBigQueryTypeDecodesToTheValueTheRestReaderMakesOfItsText() throws Exception {
    Schema numeric = LogicalTypes.decimal(38, 9).addToSchema(Schema.create(Schema.Type.BYTES));
    Schema date = LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
    Schema time = LogicalTypes.timeMicros().addToSchema(Schema.create(Schema.Type.LONG));
    Schema timestamp = LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
    Schema schema =
        SchemaBuilder.record("__root__")
            .fields()
            .name("i")
            .type(nullable(Schema.create(Schema.Type.LONG)))
            .noDefault()
            .name("n")
            .type(nullable(numeric))
            .noDefault()
            .name("whole")
            .type(nullable(numeric))
            .noDefault()
            .name("d")
            .type(nullable(date))
            .noDefault()
            .name("t")
            .type(nullable(time))
            .noDefault()
            .name("t0")
            .type(nullable(time))
            .noDefault()
            .name("ts")
            .type(nullable(timestamp))
            .noDefault()
            .name("arr")
            .type(Schema.createArray(Schema.create(Schema.Type.LONG)))
            .noDefault()
            .name("none")
            .type(nullable(Schema.create(Schema.Type.STRING)))
            .noDefault()
            .endRecord();
    GenericData.Record record = new GenericData.Record(schema);
    record.put("i", -5L);
    record.put("n", bytes(new BigDecimal("1.500000000")));
    record.put("whole", bytes(new BigDecimal("100.000000000")));
    record.put("d", (int) java.time.LocalDate.parse("2026-01-15").toEpochDay());
    record.put("t", 45_296_500_000L);
    record.put("t0", 45_296_000_000L);
    record.put("ts", 1_768_480_496_123_456L);
    record.put("arr", List.of(1L, 2L));
    record.put("none", null);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericData.Record>(schema).write(record, encoder);
    encoder.flush();

    List<ObjectNode> rows = new ArrayList<>();
    new AvroRows(schema.toString()).decode(out.toByteArray(), 1, rows);

    ObjectNode row = rows.get(0);
    assertThat(row.get("i"))
        .isEqualTo(CellValues.scalar(com.google.cloud.bigquery.StandardSQLTypeName.INT64, "-5"));
    assertThat(row.get("n"))
        .isEqualTo(CellValues.scalar(com.google.cloud.bigquery.StandardSQLTypeName.NUMERIC, "1.5"));
    assertThat(row.get("whole"))
        .isEqualTo(CellValues.scalar(com.google.cloud.bigquery.StandardSQLTypeName.NUMERIC, "100"));
    assertThat(row.get("d").asText()).isEqualTo("2026-01-15");
    assertThat(row.get("t").asText()).isEqualTo("12:34:56.500000");
    assertThat(row.get("t0").asText()).isEqualTo("12:34:56");
    assertThat(row.get("ts"))
        .isEqualTo(
            CellValues.scalar(
                com.google.cloud.bigquery.StandardSQLTypeName.TIMESTAMP, "1768480496123456"));
    assertThat(row.get("arr").toString()).isEqualTo("[1,2]");
    assertThat(row.get("none").isNull()).isTrue();
  }

  private static ByteBuffer bytes(BigDecimal value) {
    return ByteBuffer.wrap(value.unscaledValue().toByteArray());
  }
}
