package dev.pubsubclickhouse.messages.payload;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * Avro's binary decoder, but a string or bytes may claim no more than the message's data holds.
 * Avro's own decoder allocates the length a string claims before it reads a byte of it: five bytes
 * of data could ask for 2 GiB of heap, outside any memory charge. Every other call is Avro's.
 */
final class LengthBoundDecoder extends Decoder {
  private final BinaryDecoder in;
  private final int dataBytes;

  LengthBoundDecoder(BinaryDecoder in, int dataBytes) {
    this.in = in;
    this.dataBytes = dataBytes;
  }

  /** A string's or bytes' length, checked against the data before anything is allocated. */
  private int length() throws IOException {
    long length = in.readLong();
    if (length < 0 || length > dataBytes) {
      throw new AvroRuntimeException(
          "a string or bytes claims " + length + " bytes, more than the " + dataBytes + " it has");
    }
    return (int) length;
  }

  private byte[] content() throws IOException {
    byte[] content = new byte[length()];
    in.readFixed(content);
    return content;
  }

  @Override
  public Utf8 readString(Utf8 old) throws IOException {
    return new Utf8(content());
  }

  @Override
  public String readString() throws IOException {
    return readString(null).toString();
  }

  @Override
  public void skipString() throws IOException {
    in.skipFixed(length());
  }

  @Override
  public ByteBuffer readBytes(ByteBuffer old) throws IOException {
    return ByteBuffer.wrap(content());
  }

  @Override
  public void skipBytes() throws IOException {
    in.skipFixed(length());
  }

  @Override
  public void readNull() throws IOException {
    in.readNull();
  }

  @Override
  public boolean readBoolean() throws IOException {
    return in.readBoolean();
  }

  @Override
  public int readInt() throws IOException {
    return in.readInt();
  }

  @Override
  public long readLong() throws IOException {
    return in.readLong();
  }

  @Override
  public float readFloat() throws IOException {
    return in.readFloat();
  }

  @Override
  public double readDouble() throws IOException {
    return in.readDouble();
  }

  @Override
  public void readFixed(byte[] bytes, int start, int length) throws IOException {
    in.readFixed(bytes, start, length);
  }

  @Override
  public void skipFixed(int length) throws IOException {
    in.skipFixed(length);
  }

  @Override
  public int readEnum() throws IOException {
    return in.readEnum();
  }

  @Override
  public long readArrayStart() throws IOException {
    return in.readArrayStart();
  }

  @Override
  public long arrayNext() throws IOException {
    return in.arrayNext();
  }

  @Override
  public long skipArray() throws IOException {
    return in.skipArray();
  }

  @Override
  public long readMapStart() throws IOException {
    return in.readMapStart();
  }

  @Override
  public long mapNext() throws IOException {
    return in.mapNext();
  }

  @Override
  public long skipMap() throws IOException {
    return in.skipMap();
  }

  @Override
  public int readIndex() throws IOException {
    return in.readIndex();
  }
}
