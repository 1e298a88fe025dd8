package dev.pubsubclickhouse.messages.payload;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.ProtoFile;
import com.squareup.wire.schema.Schema;
import com.squareup.wire.schema.SchemaException;
import com.squareup.wire.schema.SchemaLoader;
import com.squareup.wire.schema.internal.SchemaEncoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The .proto text of a Pub/Sub schema as protobuf-java descriptors, so that messages decode at run
 * time without generated classes. Wire parses and links the text (Pub/Sub allows one file, one
 * top-level message type and no imports) and writes it as a {@code FileDescriptorProto};
 * protobuf-java builds the descriptors from that.
 */
final class ProtoDefinitions {
  private static final String FILE = "pubsub_schema.proto";

  private ProtoDefinitions() {}

  /**
   * The schema's one top-level message type.
   *
   * @throws IllegalArgumentException when the text does not parse or link, or does not hold exactly
   *     one top-level message type
   */
  static Descriptor topLevelMessage(String definition) {
    FileDescriptor file = fileDescriptor(definition);
    List<Descriptor> messages = file.getMessageTypes();
    if (messages.size() != 1) {
      throw new IllegalArgumentException(
          "a Pub/Sub schema holds one top-level message type; this one holds " + messages.size());
    }
    return messages.get(0);
  }

  private static FileDescriptor fileDescriptor(String definition) {
    byte[] encoded = encoded(definition);
    try {
      FileDescriptorProto proto = FileDescriptorProto.parseFrom(encoded);
      if (proto.getDependencyCount() > 0) {
        throw new IllegalArgumentException(
            "imports are not supported (Pub/Sub schemas have none): " + proto.getDependencyList());
      }
      return FileDescriptor.buildFrom(checkingUtf8(proto), new FileDescriptor[0]);
    } catch (InvalidProtocolBufferException | DescriptorValidationException e) {
      throw new IllegalArgumentException("not a valid .proto: " + e.getMessage(), e);
    }
  }

  /**
   * The file with {@code java_string_check_utf8}, so that binary data refuses a string field that
   * is not UTF-8 in proto2 too (as proto3 does), where protobuf-java would replace its bytes with
   * U+FFFD.
   */
  private static FileDescriptorProto checkingUtf8(FileDescriptorProto proto) {
    return proto.toBuilder()
        .setOptions(proto.getOptions().toBuilder().setJavaStringCheckUtf8(true))
        .build();
  }

  /** The text parsed and linked by Wire, as FileDescriptorProto bytes. */
  private static byte[] encoded(String definition) {
    Path directory = null;
    try {
      directory = Files.createTempDirectory("pubsub-schema");
      Files.writeString(directory.resolve(FILE), definition, StandardCharsets.UTF_8);
      SchemaLoader loader = new SchemaLoader(FileSystems.getDefault());
      loader.initRoots(List.of(Location.get(directory.toString())), List.of());
      Schema schema = loader.loadSchema();
      ProtoFile file = schema.protoFile(FILE);
      return new SchemaEncoder(schema).encode(file).toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stage the schema for parsing", e);
    } catch (SchemaException | IllegalStateException | IllegalArgumentException e) {
      throw new IllegalArgumentException("not a valid .proto: " + firstLine(e.getMessage()), e);
    } finally {
      delete(directory);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static void delete(Path directory) {
    if (directory == null) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // A leftover temporary directory of a few bytes is not worth failing a message for.
    }
  }
}
