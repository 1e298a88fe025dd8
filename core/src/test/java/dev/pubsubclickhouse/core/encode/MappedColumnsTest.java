package dev.pubsubclickhouse.core.encode;

import static dev.pubsubclickhouse.core.encode.Rows.json;
import static dev.pubsubclickhouse.core.encode.Rows.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.DefaultKind;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Columns mapped to a path take the value there, under the rules of a field of their name. */
class MappedColumnsTest {
  private static final ColumnSources SOURCES =
      new ColumnSources(
          Map.of(
              "user_id", FieldPath.parse("user.id"),
              "sku", FieldPath.parse("items[0].sku"),
              "origin", FieldPath.parse("attributes.origin").inMessage("$attributes.origin")));

  private static RowEncoder encoder(ColumnDefinition... columns) {
    return RowEncoder.forTable(schema(columns), SOURCES);
  }

  private static String hex(RowEncoder encoder, String row, String message) throws Exception {
    RowBinaryOutput out = new RowBinaryOutput();
    encoder.encode(json(row), message == null ? null : json(message), out, false);
    return HexFormat.of().formatHex(out.toByteArray());
  }

  @Test
  void aMappedColumnTakesTheValueAtItsPathAndNotTheFieldOfItsName() throws Exception {
    RowEncoder encoder =
        encoder(ColumnDefinition.of("user_id", "UInt8"), ColumnDefinition.of("sku", "String"));
    // Each value: 00 (not DEFAULT), then the value; String as length + bytes.
    assertThat(
            hex(encoder, "{\"user_id\":9,\"user\":{\"id\":7},\"items\":[{\"sku\":\"ab\"}]}", null))
        .isEqualTo("0007" + "00026162");
    assertThat(encoder.readsMessage()).isFalse();
  }

  @Test
  void aPathInTheMessageReadsTheMessagesObject() throws Exception {
    RowEncoder encoder = encoder(ColumnDefinition.of("origin", "String"));
    assertThat(encoder.readsMessage()).isTrue();
    assertThat(hex(encoder, "{\"origin\":\"row\"}", "{\"attributes\":{\"origin\":\"eu\"}}"))
        .isEqualTo("00026575");
  }

  @Test
  void aMissingPathIsAMissingField() throws Exception {
    RowEncoder encoder =
        encoder(
            ColumnDefinition.of("user_id", "UInt8", DefaultKind.DEFAULT, "42"),
            ColumnDefinition.of("sku", "Nullable(String)"));
    assertThat(hex(encoder, "{\"user\":{},\"items\":[]}", null)).isEqualTo("01" + "0001");
    assertThat(hex(encoder, "{\"user\":{\"id\":null},\"items\":[{\"sku\":null}]}", null))
        .as("null at the path")
        .isEqualTo("01" + "0001");
  }

  @Test
  void aRefusalNamesThePath() {
    RowEncoder encoder = encoder(ColumnDefinition.of("user_id", "UInt8"));
    assertThatThrownBy(() -> hex(encoder, "{\"user\":{\"name\":\"x\"}}", null))
        .isInstanceOf(RowRejectedException.class)
        .hasMessage(
            "column 'user_id' (UInt8) from user.id rejects (missing): a value is required (no"
                + " DEFAULT, not Nullable)");
    assertThatThrownBy(() -> hex(encoder, "{\"user\":{\"id\":300}}", null))
        .hasMessageStartingWith("column 'user_id' (UInt8) from user.id rejects 300: ");
  }

  @Test
  void theFirstFieldOfAPathIsPlacedAndAFieldNamedLikeAMappedColumnIsNot() {
    RowEncoder encoder =
        encoder(
            ColumnDefinition.of("user_id", "UInt8"),
            ColumnDefinition.of("origin", "String"),
            ColumnDefinition.of("level", "String"));
    assertThat(
            encoder.unplacedFields(
                json(
                    "{\"user\":{\"id\":1,\"name\":\"n\"},\"user_id\":2,\"origin\":\"o\","
                        + "\"level\":\"x\",\"items\":[]}")))
        .containsExactly("user_id", "origin", "items");
  }

  @Test
  void aMappingOfAColumnTheTableLacksIsIgnoredThere() throws Exception {
    RowEncoder encoder = encoder(ColumnDefinition.of("level", "String"));
    assertThat(encoder.unplacedFields(json("{\"user\":{\"id\":1},\"level\":\"x\"}")))
        .containsExactly("user");
    assertThat(hex(encoder, "{\"level\":\"x\"}", null)).isEqualTo("000178");
  }
}
