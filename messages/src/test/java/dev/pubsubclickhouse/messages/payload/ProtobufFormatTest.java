package dev.pubsubclickhouse.messages.payload;

import static dev.pubsubclickhouse.messages.payload.FormatData.hex;
import static dev.pubsubclickhouse.messages.payload.FormatData.rejection;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class ProtobufFormatTest {
  /** {@code levels} Ms each in the field next of the one before, binary. */
  private static byte[] nestedBinary(int levels) {
    byte[] data = new byte[0];
    for (int i = 1; i < levels; i++) {
      ByteArrayOutputStream outer = new ByteArrayOutputStream();
      outer.write(0x0A);
      for (int length = data.length; ; length >>>= 7) {
        if (length < 0x80) {
          outer.write(length);
          break;
        }
        outer.write(length & 0x7F | 0x80);
      }
      outer.writeBytes(data);
      data = outer.toByteArray();
    }
    return data;
  }

  private static byte[] nestedJson(int levels) {
    return ("{\"next\":".repeat(levels - 1) + "{}" + "}".repeat(levels - 1)).getBytes();
  }

  private interface Fields {
    void write(CodedOutputStream out) throws IOException;
  }

  /** A message written field by field, as any publisher's library would. */
  private static byte[] message(Fields fields) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    fields.write(out);
    out.flush();
    return bytes.toByteArray();
  }

  /** A map's entry whose key {@code key} writes, and whose value is "max". */
  private static byte[] entryToMax(Fields key) throws IOException {
    return message(
        entry -> {
          key.write(entry);
          entry.writeString(2, "max");
        });
  }

  @Test
  void unsignedMapKeysKeepTheirUnsignedValue() throws Exception {
    ProtobufFormat format =
        ProtobufFormat.of(
            "s",
            "syntax = \"proto3\";\nmessage M { map<uint32, string> u32 = 1;"
                + " map<uint64, string> u64 = 2; map<fixed32, string> f32 = 3;"
                + " map<fixed64, string> f64 = 4; }",
            true);
    byte[] entry32 = entryToMax(entry -> entry.writeUInt32(1, -1));
    byte[] entry64 = entryToMax(entry -> entry.writeUInt64(1, -1L));
    byte[] fixedEntry32 = entryToMax(entry -> entry.writeFixed32(1, -1));
    byte[] fixedEntry64 = entryToMax(entry -> entry.writeFixed64(1, -1L));
    byte[] data =
        message(
            out -> {
              out.writeByteArray(1, entry32);
              out.writeByteArray(2, entry64);
              out.writeByteArray(3, fixedEntry32);
              out.writeByteArray(4, fixedEntry64);
            });
    assertThat(format.rows(data).get(0).toString())
        .isEqualTo(
            "{\"u32\":{\"4294967295\":\"max\"},\"u64\":{\"18446744073709551615\":\"max\"},"
                + "\"f32\":{\"4294967295\":\"max\"},\"f64\":{\"18446744073709551615\":\"max\"}}");
  }

  @Test
  void theBinaryEncodingIsBinaryDataAndTheJsonOneIsNot() {
    String definition = "syntax = \"proto3\";\nmessage M { string s = 1; }";
    assertThat(ProtobufFormat.of("s", definition, true).binary()).isTrue();
    assertThat(ProtobufFormat.of("s", definition, false).binary()).isFalse();
  }

  @Test
  void aProto3EnumNumberTheEnumDoesNotNameIsKeptAsTheNumber() throws Exception {
    String definition =
        "syntax = \"proto3\";\nmessage M { enum Level { INFO = 0; WARN = 1; }"
            + " Level level = 1; repeated Level levels = 2; }";
    byte[] data =
        message(
            out -> {
              out.writeEnum(1, 5);
              out.writeEnum(2, 7);
              out.writeEnum(2, 1);
            });
    assertThat(ProtobufFormat.of("s", definition, true).rows(data).get(0).toString())
        .isEqualTo("{\"level\":5,\"levels\":[7,\"WARN\"]}");
    assertThat(
            ProtobufFormat.of("s", definition, false)
                .rows("{\"level\":5,\"levels\":[7,\"WARN\"]}".getBytes())
                .get(0)
                .toString())
        .isEqualTo("{\"level\":5,\"levels\":[7,\"WARN\"]}");
  }

  @Test
  void aValueTheFieldsTypeCannotHoldIsRejectedNotDropped() throws Exception {
    String prefix = "data does not decode as Protocol Buffers (binary) message M of schema s: ";
    ProtobufFormat closedEnum =
        ProtobufFormat.of(
            "s",
            "syntax = \"proto2\";\nmessage M { enum Level { INFO = 0; WARN = 1; }"
                + " optional Level level = 1; repeated Level levels = 2; }",
            true);
    assertThat(rejection(closedEnum, message(out -> out.writeEnum(1, 5))))
        .as("proto2 enums are closed: protobuf-java keeps 5 aside as an unknown field")
        .isEqualTo(prefix + "field level holds a value that is not of its type (enum Level)");
    assertThat(
            rejection(
                closedEnum,
                message(
                    out -> {
                      out.writeEnum(2, 1);
                      out.writeEnum(2, 7);
                    })))
        .isEqualTo(prefix + "field levels holds a value that is not of its type (enum Level)");
    ProtobufFormat nested =
        ProtobufFormat.of(
            "s",
            "syntax = \"proto3\";\nmessage M { message N { int32 n = 1; } N inner = 1; }",
            true);
    byte[] fixed64InsteadOfVarint = message(out -> out.writeFixed64(1, 42));
    assertThat(rejection(nested, message(out -> out.writeByteArray(1, fixed64InsteadOfVarint))))
        .as("a value of another wire type, which protobuf-java keeps aside too")
        .isEqualTo(prefix + "field n holds a value that is not of its type (int32)");
  }

  /**
   * A map's entry is a message of its own: protobuf-java keeps a value its key or value cannot hold
   * aside in the entry's unknown fields, and the entry then reads as the type's default.
   */
  @Test
  void aMapEntryHoldingAValueItsTypeCannotHoldIsRejectedNotReadAsTheDefault() throws Exception {
    String prefix = "data does not decode as Protocol Buffers (binary) message M of schema s: ";
    ProtobufFormat closedEnum =
        ProtobufFormat.of(
            "s",
            "syntax = \"proto2\";\nmessage M { enum Level { INFO = 0; WARN = 1; }"
                + " map<string, Level> levels = 1; }",
            true);
    byte[] unnamed =
        message(
            entry -> {
              entry.writeString(1, "k");
              entry.writeEnum(2, 5);
            });
    assertThat(rejection(closedEnum, message(out -> out.writeByteArray(1, unnamed))))
        .as("stored as {\"levels\":{\"k\":\"INFO\"}}, answered 2xx")
        .isEqualTo(prefix + "field levels holds a value that is not of its type (enum Level)");
    ProtobufFormat ints =
        ProtobufFormat.of(
            "s", "syntax = \"proto3\";\nmessage M { map<int32, int32> counts = 1; }", true);
    byte[] valueOfAnotherWireType =
        message(
            entry -> {
              entry.writeInt32(1, 1);
              entry.writeFixed64(2, 9);
            });
    assertThat(rejection(ints, message(out -> out.writeByteArray(1, valueOfAnotherWireType))))
        .as("stored as {\"counts\":{\"1\":0}}")
        .isEqualTo(prefix + "field counts holds a value that is not of its type (int32)");
    byte[] keyOfAnotherWireType =
        message(
            entry -> {
              entry.writeFixed64(1, 7);
              entry.writeInt32(2, 9);
            });
    assertThat(rejection(ints, message(out -> out.writeByteArray(1, keyOfAnotherWireType))))
        .as("stored as {\"counts\":{\"0\":9}}")
        .isEqualTo(prefix + "field counts holds a value that is not of its type (int32)");
  }

  @Test
  void messagesNestedDeeperThanTheParsersAllowAreRejectedInBothEncodings() {
    String definition = "syntax = \"proto3\";\nmessage M { M next = 1; }";
    assertThat(rejection(ProtobufFormat.of("s", definition, true), nestedBinary(5_000)))
        .isEqualTo(
            "data does not decode as Protocol Buffers (binary) message M of schema s: Protocol"
                + " message had too many levels of nesting.  May be malicious.  Use"
                + " setRecursionLimit() to increase the recursion depth limit.");
    ProtobufFormat json = ProtobufFormat.of("s", definition, false);
    String prefix = "data does not decode as Protocol Buffers (JSON) message M of schema s: ";
    assertThat(rejection(json, nestedJson(150))).isEqualTo(prefix + "Hit recursion limit.");
    assertThat(rejection(json, nestedJson(5_000)))
        .startsWith(
            prefix + "com.google.gson.stream.MalformedJsonException: Nesting limit 255 reached");
  }

  @Test
  void proto2StringsThatAreNotUtf8AreRejectedAsProto3OnesAre() {
    for (String syntax : new String[] {"proto2", "proto3"}) {
      ProtobufFormat format =
          ProtobufFormat.of(
              "s", "syntax = \"" + syntax + "\";\nmessage M { optional string s = 1; }", true);
      assertThat(rejection(format, hex("0A 03 FF FE 41")))
          .as(syntax)
          .isEqualTo(
              "data does not decode as Protocol Buffers (binary) message M of schema s: Protocol"
                  + " message had invalid UTF-8.");
    }
  }

  @Test
  void jsonEncodedDataThatIsNotUtf8IsRejected() {
    ProtobufFormat format =
        ProtobufFormat.of("s", "syntax = \"proto3\";\nmessage M { string s = 1; }", false);
    assertThat(rejection(format, hex("7B 22 73 22 3A 22 C3 28 22 7D")))
        .isEqualTo(
            "data does not decode as Protocol Buffers (JSON) message M of schema s: the data is"
                + " not UTF-8");
  }
}
