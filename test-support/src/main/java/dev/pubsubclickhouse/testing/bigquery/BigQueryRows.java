package dev.pubsubclickhouse.testing.bigquery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Schemas and rows in the REST API's form, and the row conditions the stand-in can evaluate. */
public final class BigQueryRows {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final Pattern CONDITION =
      Pattern.compile("\\s*(\\w+)\\s*(>=|<=|=|<|>)\\s*(-?\\d+)\\s*");

  private BigQueryRows() {}

  /** Schema fields from {@code "name TYPE [MODE]"} (mode NULLABLE when left out). */
  public static ArrayNode fields(String... nameTypeModes) {
    ArrayNode fields = NODES.arrayNode();
    for (String spec : nameTypeModes) {
      String[] parts = spec.split(" ");
      ObjectNode field = fields.addObject().put("name", parts[0]).put("type", parts[1]);
      field.put("mode", parts.length > 2 ? parts[2] : "NULLABLE");
    }
    return fields;
  }

  /** One schema field; {@code subFields} for a RECORD, else null. */
  public static ObjectNode field(String name, String type, String mode, ArrayNode subFields) {
    ObjectNode field = NODES.objectNode().put("name", name).put("type", type).put("mode", mode);
    if (subFields != null) {
      field.set("fields", subFields);
    }
    return field;
  }

  /**
   * A row in tabledata.list form from cells: a String (the API's text), null, a List (a repeated
   * field's values) or a {@link #record} (a STRUCT).
   */
  public static JsonNode row(Object... cells) {
    ObjectNode row = NODES.objectNode();
    ArrayNode f = row.putArray("f");
    for (Object cell : cells) {
      f.addObject().set("v", value(cell));
    }
    return row;
  }

  public static JsonNode record(Object... cells) {
    return row(cells);
  }

  private static JsonNode value(Object cell) {
    if (cell == null) {
      return NODES.nullNode();
    }
    if (cell instanceof JsonNode node) {
      return node;
    }
    if (cell instanceof List<?> list) {
      ArrayNode array = NODES.arrayNode();
      for (Object element : list) {
        array.addObject().set("v", value(element));
      }
      return array;
    }
    return NODES.textNode(cell.toString());
  }

  /**
   * {@code field op number [AND ...]}: the row restrictions and WHERE conditions the stand-in
   * evaluates, with BigQuery's meaning.
   */
  static boolean matches(ArrayNode fields, JsonNode row, String condition) {
    for (String part : condition.split("(?i) AND ")) {
      Matcher m = CONDITION.matcher(part);
      if (!m.matches()) {
        throw new IllegalArgumentException("the BigQuery stand-in cannot evaluate: " + part);
      }
      int index = -1;
      for (int i = 0; i < fields.size(); i++) {
        if (fields.get(i).path("name").asText().equals(m.group(1))) {
          index = i;
        }
      }
      JsonNode cell = row.path("f").path(index).path("v");
      if (cell.isNull() || cell.isMissingNode()) {
        return false;
      }
      int compared = Long.compare(Long.parseLong(cell.asText()), Long.parseLong(m.group(3)));
      boolean holds =
          switch (m.group(2)) {
            case ">=" -> compared >= 0;
            case "<=" -> compared <= 0;
            case ">" -> compared > 0;
            case "<" -> compared < 0;
            default -> compared == 0;
          };
      if (!holds) {
        return false;
      }
    }
    return true;
  }
}
