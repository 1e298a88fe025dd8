package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.util.List;

/** Test fixtures: JSON text to nodes, and one-column schemas. */
final class Rows {
  static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
          .build();

  private Rows() {}

  static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(text, e);
    }
  }

  static TableSchema schema(ColumnDefinition... columns) {
    return new TableSchema(new TableName("db", "t"), List.of(columns));
  }

  static RowEncoder oneColumn(String type) {
    return RowEncoder.forTable(schema(ColumnDefinition.of("v", type)));
  }
}
