package dev.pubsubclickhouse.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;

/**
 * The data of a message on a topic with an Avro schema: one record in the encoding the topic names,
 * written by the Avro library's own writer, as a publisher's client writes it.
 */
public final class AvroMessages {
  private AvroMessages() {}

  /** {@code record} in Avro's binary encoding. */
  public static byte[] binary(GenericRecord record) {
    return encode(record, false);
  }

  /** {@code record} in Avro's JSON encoding. */
  public static byte[] json(GenericRecord record) {
    return encode(record, true);
  }

  private static byte[] encode(GenericRecord record, boolean json) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      Encoder encoder =
          json
              ? EncoderFactory.get().jsonEncoder(record.getSchema(), bytes)
              : EncoderFactory.get().binaryEncoder(bytes, null);
      new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
      encoder.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
