package dev.pubsubclickhouse.core.encode;

import static dev.pubsubclickhouse.core.encode.Rows.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class FieldPathTest {
  private static final JsonNode ROW =
      json(
          "{\"user\":{\"id\":7,\"name\":null},\"items\":[{\"sku\":\"a\"},{\"sku\":\"b\"}],"
              + "\"a.b\":{\"c\":1},\"x[0]\":2,\"q\\\"uote\":3,\"back\\\\slash\":4,\"\":5,"
              + "\"matrix\":[[1,2],[3,4]],\"s\":\"text\",\"é\":6}");

  private static JsonNode find(String path) {
    return FieldPath.parse(path).find(ROW, null);
  }

  @Test
  void aFieldNameIsThePathOfThatField() {
    assertThat(find("s").textValue()).isEqualTo("text");
    assertThat(find("é").intValue()).isEqualTo(6);
    assertThat(FieldPath.parse("s").firstField()).isEqualTo("s");
  }

  @Test
  void dotsStepIntoObjectsAndIndicesIntoArraysFromZero() {
    assertThat(find("user.id").intValue()).isEqualTo(7);
    assertThat(find("items[0].sku").textValue()).isEqualTo("a");
    assertThat(find("items[1].sku").textValue()).isEqualTo("b");
    assertThat(find("matrix[1][0]").intValue()).isEqualTo(3);
    assertThat(find("items[1]").toString()).isEqualTo("{\"sku\":\"b\"}");
  }

  @Test
  void aQuotedNameHoldsDotsBracketsQuotesAndBackslashes() {
    assertThat(find("\"a.b\".c").intValue()).isEqualTo(1);
    assertThat(find("\"x[0]\"").intValue()).isEqualTo(2);
    assertThat(find("\"q\\\"uote\"").intValue()).isEqualTo(3);
    assertThat(find("\"back\\\\slash\"").intValue()).isEqualTo(4);
    assertThat(find("\"\"").intValue()).isEqualTo(5);
    assertThat(FieldPath.parse("\"a.b\".c").firstField()).isEqualTo("a.b");
  }

  @Test
  void aPathThatLeadsNowhereFindsNothingAndANullIsFound() {
    assertThat(find("nope")).isNull();
    assertThat(find("user.nope")).isNull();
    assertThat(find("items[2].sku")).isNull();
    assertThat(find("s.x")).as("a name into a string").isNull();
    assertThat(find("s[0]")).as("an index into a string").isNull();
    assertThat(find("user[0]")).as("an index into an object").isNull();
    assertThat(find("items.sku")).as("a name into an array").isNull();
    assertThat(find("user.name.first")).as("a name into null").isNull();
    assertThat(find("a.b")).as("unquoted, a.b is two steps").isNull();
    assertThat(find("user.name").isNull()).isTrue();
  }

  @Test
  void aPathInTheMessageStartsThereAndTakesNoFieldOfTheRow() {
    FieldPath path = FieldPath.parse("attributes.origin").inMessage("$attributes.origin");
    JsonNode message = json("{\"attributes\":{\"origin\":\"eu\"}}");
    assertThat(path.find(ROW, message).textValue()).isEqualTo("eu");
    assertThat(path.inMessage()).isTrue();
    assertThat(path.firstField()).isNull();
    assertThat(path).hasToString("$attributes.origin");
  }

  @Test
  void malformedPathsAreRefusedSayingWhereAndWhy() {
    assertThatThrownBy(() -> FieldPath.parse("")).hasMessage("the path is empty");
    assertThatThrownBy(() -> FieldPath.parse("[0]"))
        .hasMessage("a path begins with a field name, not an index");
    assertThatThrownBy(() -> FieldPath.parse("a."))
        .hasMessage("the path ends with '.': a field name must follow");
    assertThatThrownBy(() -> FieldPath.parse("a..b"))
        .hasMessage("a field name is missing at 2 (before '.')");
    assertThatThrownBy(() -> FieldPath.parse("a[0")).hasMessage("'[' at 1 has no ']'");
    assertThatThrownBy(() -> FieldPath.parse("a[]"))
        .hasMessage("'[]' at 1: an index is a number from 0");
    assertThatThrownBy(() -> FieldPath.parse("a[-1]"))
        .hasMessage("'[-1]' at 1: an index is a number from 0");
    assertThatThrownBy(() -> FieldPath.parse("a[ 1]"))
        .hasMessage("'[ 1]' at 1: an index is a number from 0");
    assertThatThrownBy(() -> FieldPath.parse("a[99999999999]"))
        .hasMessage("'[99999999999]' at 1: index too large");
    assertThatThrownBy(() -> FieldPath.parse("a b"))
        .hasMessage("' ' at 1 in a field name: quote the name (\"...\")");
    assertThatThrownBy(() -> FieldPath.parse("a]"))
        .hasMessage("']' at 1 in a field name: quote the name (\"...\")");
    assertThatThrownBy(() -> FieldPath.parse("\"a")).hasMessage("the quote at 0 is not closed");
    assertThatThrownBy(() -> FieldPath.parse("\"a\"b"))
        .hasMessage("unexpected 'b' at 3: expected '.' or '[' (quote a name that holds it)");
    assertThatThrownBy(() -> FieldPath.parse("\"a\\n\""))
        .hasMessage("'\\' at 2 in a quoted name: only \\\" and \\\\ are escapes");
    assertThatThrownBy(() -> FieldPath.parse("a[0]b"))
        .hasMessage("unexpected 'b' at 4: expected '.' or '[' (quote a name that holds it)");
  }

  @Test
  void pathsOfTheSameStepsAreEqual() {
    assertThat(FieldPath.parse("\"a\".b[0]")).isEqualTo(FieldPath.parse("a.\"b\"[0]"));
    assertThat(FieldPath.parse("a.b")).isNotEqualTo(FieldPath.parse("\"a.b\""));
    assertThat(FieldPath.parse("a").inMessage("$a")).isNotEqualTo(FieldPath.parse("a"));
  }
}
