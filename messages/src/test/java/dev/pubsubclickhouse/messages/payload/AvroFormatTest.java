package dev.pubsubclickhouse.messages.payload;

import static dev.pubsubclickhouse.messages.payload.FormatData.hex;
import static dev.pubsubclickhouse.messages.payload.FormatData.rejection;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.LocalDate;
import java.util.List;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

class AvroFormatTest {
  private static final String NODE =
      """
      {"type":"record","name":"Node","fields":[
        {"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]}""";

  private static AvroFormat binary(String fields) {
    return AvroFormat.of(
        "s", "{\"type\":\"record\",\"name\":\"R\",\"fields\":[" + fields + "]}", true);
  }

  /** A list of {@code nodes} Nodes of value 0, binary: each a 0 and the union's branch. */
  private static byte[] nodes(int nodes) {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    for (int i = 1; i < nodes; i++) {
      data.writeBytes(hex("00 02"));
    }
    data.writeBytes(hex("00 00"));
    return data.toByteArray();
  }

  /** An Avro date (days since 1970-01-01) in a DateTime column is that day's midnight. */
  @Test
  void theBinaryEncodingIsBinaryDataAndTheJsonOneIsNot() {
    assertThat(AvroFormat.of("s", NODE, true).binary()).isTrue();
    assertThat(AvroFormat.of("s", NODE, false).binary()).isFalse();
  }

  @Test
  void aDateInADateTimeColumnIsItsDayNotItsDayCountInSeconds() throws Exception {
    LocalDate day = LocalDate.of(2026, 1, 15);
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    BinaryEncoder avro = EncoderFactory.get().binaryEncoder(data, null);
    avro.writeInt((int) day.toEpochDay());
    avro.flush();
    AvroFormat format =
        binary("{\"name\":\"d\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}}");
    RowEncoder encoder =
        RowEncoder.forTable(
            new TableSchema(
                new TableName("db", "t"), List.of(ColumnDefinition.of("d", "DateTime('UTC')"))));
    RowBinaryOutput out = new RowBinaryOutput();
    encoder.encode(format.rows(data.toByteArray()).get(0), out);
    byte[] row = out.toByteArray();
    long stored =
        Integer.toUnsignedLong(ByteBuffer.wrap(row, 1, 4).order(ByteOrder.LITTLE_ENDIAN).getInt());
    assertThat(java.time.Instant.ofEpochSecond(stored))
        .isEqualTo(day.atStartOfDay(java.time.ZoneOffset.UTC).toInstant());
  }

  /** Avro 1.12 puts uuid on fixed(16) as well as on string: both reach the column as its text. */
  @Test
  void aUuidOnFixedIsItsText() throws Exception {
    AvroFormat format =
        binary(
            "{\"name\":\"u\",\"type\":{\"type\":\"fixed\",\"name\":\"U\",\"size\":16,"
                + "\"logicalType\":\"uuid\"}}");
    assertThat(
            format
                .rows(java.util.HexFormat.of().parseHex("00112233445566778899AABBCCDDEEFF"))
                .get(0)
                .get("u")
                .textValue())
        .isEqualTo("00112233-4455-6677-8899-aabbccddeeff");
  }

  /** A decimal of no bytes is no number (two's complement needs one byte): said so. */
  @Test
  void aDecimalOfNoBytesIsRejectedSayingSo() throws Exception {
    assertThat(
            rejection(
                binary(
                    "{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\","
                        + "\"precision\":9,\"scale\":2}}"),
                hex("00")))
        .isEqualTo(
            "data does not decode as Avro (binary) of schema s: field d holds a decimal of no bytes");
  }

  @Test
  void dataNestedDeeperThanJsonPayloadsMayNestIsRejected() throws Exception {
    int limit = JsonPayloads.MAX_NESTING_DEPTH;
    AvroFormat format = AvroFormat.of("s", NODE, true);
    assertThat(format.rows(nodes(limit)).get(0).toString())
        .isEqualTo(
            "{\"v\":0,\"next\":".repeat(limit - 1)
                + "{\"v\":0,\"next\":null}"
                + "}".repeat(limit - 1));
    String deeper =
        "data does not decode as Avro (binary) of schema s: nested deeper than 200 levels";
    assertThat(rejection(format, nodes(limit + 1))).isEqualTo(deeper);
    assertThat(rejection(format, nodes(5_000))).as("no StackOverflowError").isEqualTo(deeper);
  }

  @Test
  void arraysAndMapsClaimingMoreItemsThanTheDataHasBytesAreRejected() throws Exception {
    AvroFormat nulls = binary("{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"null\"}}");
    assertThat(nulls.rows(hex("04 00")).get(0).toString()).isEqualTo("{\"a\":[null,null]}");
    String reason =
        "data does not decode as Avro (binary) of schema s: its arrays and maps claim"
            + " more items than its %d bytes hold";
    assertThat(rejection(nulls, hex("80 88 DE BE 01 00")))
        .as("200,000,000 nulls in one block: no OutOfMemoryError")
        .isEqualTo(reason.formatted(6));
    assertThat(rejection(nulls, hex("0A 0A 0A 00")))
        .as("blocks of 5")
        .isEqualTo(reason.formatted(4));
    assertThat(
            rejection(
                binary("{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"int\"}}"),
                hex("80 88 DE BE 01 00")))
        .as("not sized for 200,000,000 ints")
        .isEqualTo(reason.formatted(6));
    assertThat(
            rejection(
                binary("{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"null\"}}"),
                hex("80 88 DE BE 01 02 61 00")))
        .isEqualTo(reason.formatted(8));
  }

  /** Avro's decoder allocates a string's claimed length before it reads it: five bytes, 200 MiB. */
  @Test
  void stringsAndBytesClaimingMoreThanTheDataHoldsAreRejectedBeforeAnyAllocation()
      throws Exception {
    String claim = "80 80 80 C8 01";
    String reason =
        "data does not decode as Avro (binary) of schema s: a string or bytes claims 209715200"
            + " bytes, more than the 5 it has";
    assertThat(rejection(binary("{\"name\":\"s\",\"type\":\"string\"}"), hex(claim)))
        .isEqualTo(reason);
    assertThat(rejection(binary("{\"name\":\"b\",\"type\":\"bytes\"}"), hex(claim)))
        .isEqualTo(reason);
    assertThat(
            binary("{\"name\":\"s\",\"type\":\"string\"},{\"name\":\"b\",\"type\":\"bytes\"}")
                .rows(hex("04 68 69 02 FF"))
                .get(0)
                .toString())
        .as("what the data holds is read")
        .isEqualTo("{\"s\":\"hi\",\"b\":\"/w==\"}");
  }

  @Test
  void stringsThatAreNotUtf8AreRejectedNamingTheFieldAndBytesAreKeptAsTheyAre() throws Exception {
    String prefix = "data does not decode as Avro (binary) of schema s: ";
    assertThat(rejection(binary("{\"name\":\"s\",\"type\":\"string\"}"), hex("06 FF FE 41")))
        .isEqualTo(prefix + "field s holds a string that is not UTF-8");
    assertThat(
            rejection(
                binary(
                    "{\"name\":\"s\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"}}"),
                hex("02 C3")))
        .isEqualTo(prefix + "field s holds a string that is not UTF-8");
    assertThat(
            rejection(
                binary("{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"int\"}}"),
                hex("02 02 FF 00 00")))
        .isEqualTo(prefix + "field m holds a string that is not UTF-8");
    assertThat(
            binary("{\"name\":\"b\",\"type\":\"bytes\"}")
                .rows(hex("06 FF FE 41"))
                .get(0)
                .get("b")
                .binaryValue())
        .isEqualTo(hex("FF FE 41"));
  }

  @Test
  void jsonEncodedDataThatIsNotUtf8IsRejectedAndALoneSurrogateIsLeftForTheEncoderToRefuse()
      throws Exception {
    AvroFormat format =
        AvroFormat.of(
            "s",
            "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"}]}",
            false);
    assertThat(rejection(format, hex("7B 22 73 22 3A 22 C3 28 22 7D")))
        .isEqualTo("data does not decode as Avro (JSON) of schema s: the data is not UTF-8");
    assertThat(format.rows("{\"s\":\"\\ud800\"}".getBytes()).get(0).get("s").textValue())
        .isEqualTo("\ud800");
  }
}
