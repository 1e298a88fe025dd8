package dev.pubsubclickhouse.messages.payload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.messages.MemoryCharge;
import java.math.BigInteger;
import java.util.List;
import java.util.Locale;

/**
 * Protocol Buffers messages, binary or in the proto3 JSON mapping, read with the topic's schema
 * (its one top-level message type): one message is one row, each field a column by its name in the
 * .proto. Values become what the JSON type rules read: integers as numbers (uint32, uint64 and
 * fixed ones unsigned), float and double as numbers, bool, string as text, bytes as the bytes, an
 * enum as its value's name (a number it does not name as the number), a nested message as an
 * object, repeated as an array, a map as an object. A field without presence (proto3's default) is
 * always written, so a zero reaches its column as zero; a field with presence that is not set is
 * left to the column's DEFAULT.
 */
final class ProtobufFormat extends SchemaFormat {
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final JsonFormat.Parser JSON = JsonFormat.parser();

  /**
   * Heap per byte of data for the parsed message: boxed numbers of a packed field (two bytes each
   * from 128: 14 bytes per byte for longs), strings (one-character ones: 17 bytes per byte).
   */
  private static final int BYTES_PER_DATA_BYTE = 16;

  private final Descriptor type;

  private ProtobufFormat(String resource, Descriptor type, boolean binary) {
    super(resource, binary, BYTES_PER_DATA_BYTE);
    this.type = type;
  }

  /**
   * @throws IllegalArgumentException when the definition is not a .proto with one top-level message
   */
  static ProtobufFormat of(String resource, String definition, boolean binary) {
    return new ProtobufFormat(resource, ProtoDefinitions.topLevelMessage(definition), binary);
  }

  /**
   * The parsed message is charged before it is parsed ({@link #BYTES_PER_DATA_BYTE} per byte), the
   * row's nodes as they are made ({@link NodeCharge}).
   */
  @Override
  public List<JsonNode> rows(byte[] data, MemoryCharge memory) throws PayloadRejectedException {
    chargeDecoding(data, memory);
    DynamicMessage message;
    try {
      if (binary) {
        message = DynamicMessage.parseFrom(type, data);
      } else {
        String text = jsonText(data);
        DynamicMessage.Builder builder = DynamicMessage.newBuilder(type);
        JSON.merge(text, builder);
        requireOneMessage(text);
        message = builder.build();
      }
    } catch (InvalidProtocolBufferException e) {
      throw new PayloadRejectedException(describe() + ": " + e.getMessage());
    } catch (RuntimeException e) {
      throw new PayloadRejectedException(describe() + ": " + e);
    }
    if (!message.isInitialized()) {
      throw new PayloadRejectedException(
          describe() + ": required fields missing: " + message.findInitializationErrors());
    }
    try {
      return List.of(object(message, new NodeCharge(memory)));
    } catch (PayloadRejectedException e) {
      throw new PayloadRejectedException(describe() + ": " + e.getMessage());
    }
  }

  @Override
  String describe() {
    return "data does not decode as Protocol Buffers ("
        + (binary ? "binary" : "JSON")
        + ") message "
        + type.getFullName()
        + " of schema "
        + resource;
  }

  /**
   * @throws PayloadRejectedException when a field holds a value its type cannot hold (a proto2
   *     enum's number it lacks, data of another wire type): protobuf-java keeps such a value aside
   *     as an unknown field, and the field would read as unset
   */
  private static ObjectNode object(Message message, NodeCharge nodes)
      throws PayloadRejectedException {
    nodes.add();
    ObjectNode object = NODES.objectNode();
    for (FieldDescriptor field : message.getDescriptorForType().getFields()) {
      nodes.add();
      if (message.getUnknownFields().hasField(field.getNumber())) {
        throw notOfItsType(field, field);
      }
      if (field.isMapField()) {
        ObjectNode map = NODES.objectNode();
        for (Object entry : (List<?>) message.getField(field)) {
          Message pair = (Message) entry;
          FieldDescriptor key = pair.getDescriptorForType().findFieldByNumber(1);
          FieldDescriptor value = pair.getDescriptorForType().findFieldByNumber(2);
          // An entry is a message of its own: what its key or value cannot hold is kept aside
          // there.
          for (FieldDescriptor part : List.of(key, value)) {
            if (pair.getUnknownFields().hasField(part.getNumber())) {
              throw notOfItsType(field, part);
            }
          }
          nodes.add();
          map.set(
              value(key, pair.getField(key), nodes).asText(),
              value(value, pair.getField(value), nodes));
        }
        object.set(field.getName(), map);
      } else if (field.isRepeated()) {
        ArrayNode array = NODES.arrayNode();
        for (Object element : (List<?>) message.getField(field)) {
          nodes.add();
          array.add(value(field, element, nodes));
        }
        object.set(field.getName(), array);
      } else if (!field.hasPresence() || message.hasField(field)) {
        object.set(field.getName(), value(field, message.getField(field), nodes));
      }
    }
    return object;
  }

  /** {@code field} holds a value that {@code typed} (itself, or its map's key or value) cannot. */
  private static PayloadRejectedException notOfItsType(
      FieldDescriptor field, FieldDescriptor typed) {
    return new PayloadRejectedException(
        "field "
            + field.getName()
            + " holds a value that is not of its type ("
            + (typed.getType() == FieldDescriptor.Type.ENUM
                ? "enum " + typed.getEnumType().getName()
                : typed.getType().name().toLowerCase(Locale.ROOT))
            + ")");
  }

  private static JsonNode value(FieldDescriptor field, Object value, NodeCharge nodes)
      throws PayloadRejectedException {
    return switch (field.getType()) {
      case INT32, SINT32, SFIXED32 -> NODES.numberNode((Integer) value);
      case UINT32, FIXED32 -> NODES.numberNode(Integer.toUnsignedLong((Integer) value));
      case INT64, SINT64, SFIXED64 -> NODES.numberNode((Long) value);
      case UINT64, FIXED64 -> {
        long bits = (Long) value;
        yield bits >= 0
            ? NODES.numberNode(bits)
            : NODES.numberNode(new BigInteger(Long.toUnsignedString(bits)));
      }
      case FLOAT -> NODES.numberNode((Float) value);
      case DOUBLE -> NODES.numberNode((Double) value);
      case BOOL -> NODES.booleanNode((Boolean) value);
      case STRING -> NODES.textNode((String) value);
      case BYTES -> NODES.binaryNode(((ByteString) value).toByteArray());
      case ENUM -> enumValue((EnumValueDescriptor) value);
      case MESSAGE, GROUP -> object((Message) value, nodes);
    };
  }

  /**
   * A value by its name; a proto3 enum's number it does not name (proto3 enums are open) by the
   * number, as the proto3 JSON mapping writes it: protobuf-java names it UNKNOWN_ENUM_VALUE_….
   */
  private static JsonNode enumValue(EnumValueDescriptor value) {
    return value.getType().findValueByNumber(value.getNumber()) == null
        ? NODES.numberNode(value.getNumber())
        : NODES.textNode(value.getName());
  }
}
