package dev.pubsubclickhouse.testing.values;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.testing.values.ValueRules.MapEntriesNode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON text of generated and canonical values. A lone surrogate has no UTF-8 form, so text that
 * holds one is written with every surrogate as a \\u escape (the only way JSON can carry one); a
 * canonical Map is written entry by entry, so that a key may repeat.
 */
public final class JsonText {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory ESCAPING =
      new JsonFactory().setCharacterEscapes(new SurrogateEscapes());

  private JsonText() {}

  public static String write(JsonNode node) {
    StringWriter text = new StringWriter();
    boolean escape = hasLoneSurrogate(node.toString());
    try (JsonGenerator generator =
        (escape ? ESCAPING : MAPPER.getFactory()).createGenerator(text)) {
      generator.setCodec(MAPPER);
      write(node, generator);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }

  private static void write(JsonNode node, JsonGenerator generator) throws IOException {
    if (node instanceof MapEntriesNode map) {
      generator.writeStartObject();
      for (Map.Entry<String, JsonNode> entry : map.entries().entries()) {
        generator.writeFieldName(entry.getKey());
        write(entry.getValue(), generator);
      }
      generator.writeEndObject();
    } else if (node.isObject()) {
      generator.writeStartObject();
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        generator.writeFieldName(field.getKey());
        write(field.getValue(), generator);
      }
      generator.writeEndObject();
    } else if (node.isArray()) {
      generator.writeStartArray();
      for (JsonNode item : node) {
        write(item, generator);
      }
      generator.writeEndArray();
    } else {
      generator.writeTree(node);
    }
  }

  static boolean hasLoneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  /** Escapes every surrogate as \\uXXXX and otherwise what JSON requires. */
  private static final class SurrogateEscapes extends CharacterEscapes {
    private final int[] ascii = standardAsciiEscapesForJSON();

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int ch) {
      return ch >= 0xD800 && ch <= 0xDFFF
          ? new SerializedString(String.format("\\u%04x", ch))
          : null;
    }
  }
}
