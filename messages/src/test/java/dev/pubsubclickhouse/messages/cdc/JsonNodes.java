package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

final class JsonNodes {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonNodes() {}

  static JsonNode text(String text) {
    return TextNode.valueOf(text);
  }

  static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
