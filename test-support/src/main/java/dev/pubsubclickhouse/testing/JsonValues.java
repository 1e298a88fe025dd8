package dev.pubsubclickhouse.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON as the tests read it back: a message's data, one of ClickHouse's {@code JSONEachRow} rows, a
 * {@code Map(String, String)} column or a message's attributes.
 */
public final class JsonValues {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonValues() {}

  public static JsonNode read(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The events of a message's data: each element of an array, or the one object. */
  public static List<JsonNode> events(JsonNode data) {
    List<JsonNode> events = new ArrayList<>();
    if (data.isArray()) {
      data.forEach(events::add);
    } else {
      events.add(data);
    }
    return events;
  }

  /** A JSON object's fields as text, in the object's order. */
  public static Map<String, String> texts(JsonNode object) {
    Map<String, String> texts = new LinkedHashMap<>();
    object.fields().forEachRemaining(e -> texts.put(e.getKey(), e.getValue().asText()));
    return texts;
  }
}
