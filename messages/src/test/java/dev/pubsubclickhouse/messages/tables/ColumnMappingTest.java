package dev.pubsubclickhouse.messages.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.encode.ColumnSources;
import dev.pubsubclickhouse.core.encode.FieldPath;
import dev.pubsubclickhouse.core.schema.TableName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ColumnMappingTest {
  private static ColumnSources read(Map<String, String> env) {
    return ColumnMapping.read(new ConfigReader(env));
  }

  private static ColumnSources mapping(String value) {
    return read(Map.of("COLUMN_MAPPING", value));
  }

  @Test
  void pairsMapColumnsToPathsInTheRow() {
    ColumnSources sources = mapping("user_id=user.id, sku = items[0].sku,\"a,b\"=\"x,y\".z,");
    assertThat(sources.paths()).hasSize(3);
    assertThat(sources.of("user_id")).isEqualTo(FieldPath.parse("user.id"));
    assertThat(sources.of("sku")).isEqualTo(FieldPath.parse("items[0].sku"));
    assertThat(sources.of("a,b")).isEqualTo(FieldPath.parse("\"x,y\".z"));
    assertThat(sources.of("other")).isNull();
  }

  @Test
  void dataAndAttributesAreTheMessagesSources() {
    ColumnSources sources =
        mapping("raw=$data,origin=$attributes.origin,dotted=$attributes.\"a.b\"");
    assertThat(sources.of("raw")).isEqualTo(FieldPath.parse("data").inMessage("$data"));
    assertThat(sources.of("raw")).hasToString("$data");
    assertThat(sources.of("origin")).isEqualTo(FieldPath.parse("attributes.origin").inMessage("x"));
    assertThat(sources.of("dotted"))
        .isEqualTo(FieldPath.parse("attributes.\"a.b\"").inMessage("x"));
  }

  @Test
  void noMappingMapsNothing() {
    assertThat(read(Map.of()).isEmpty()).isTrue();
  }

  @Test
  void aMalformedPairIsAConfigurationErrorNamingThePair() {
    assertThatThrownBy(() -> mapping("a=b,sku=items[x]"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("COLUMN_MAPPING: 'sku=items[x]': '[x]' at 5: an index is a number from 0");
    assertThatThrownBy(() -> mapping("a=b,a=c"))
        .hasMessage("COLUMN_MAPPING: 'a=c': column 'a' is mapped twice");
    assertThatThrownBy(() -> mapping("raw=$payload"))
        .hasMessage(
            "COLUMN_MAPPING: 'raw=$payload': unknown source '$payload': the message sources are"
                + " $data and $attributes.NAME");
    assertThatThrownBy(() -> mapping("o=$attributes.a.b"))
        .hasMessageStartingWith("COLUMN_MAPPING: 'o=$attributes.a.b': an attribute is one name");
    assertThatThrownBy(() -> mapping("justacolumn"))
        .hasMessage("COLUMN_MAPPING: 'justacolumn': expected column=source");
    assertThatThrownBy(() -> mapping("=a"))
        .hasMessage("COLUMN_MAPPING: '=a': the column name is empty");
    assertThatThrownBy(() -> mapping("a=")).hasMessage("COLUMN_MAPPING: 'a=': the source is empty");
    assertThatThrownBy(() -> mapping("\"a=b"))
        .hasMessage("COLUMN_MAPPING: '\"a=b': the quote at 0 is not closed");
  }

  @Test
  void theFileHoldsOnePairALineWithCommentsAndIsReadWithTheVariable(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("mapping.txt");
    Files.writeString(file, "# ids\nuser_id = user.id\n\n  origin=$attributes.origin\n");
    ColumnSources sources =
        read(Map.of("COLUMN_MAPPING_FILE", file.toString(), "COLUMN_MAPPING", "raw=$data"));
    assertThat(sources.paths().keySet()).containsExactlyInAnyOrder("user_id", "origin", "raw");

    Files.writeString(file, "# ids\nraw=user.id\n");
    assertThatThrownBy(
            () ->
                read(Map.of("COLUMN_MAPPING_FILE", file.toString(), "COLUMN_MAPPING", "raw=$data")))
        .hasMessage(
            "COLUMN_MAPPING_FILE: " + file + " line 2 'raw=user.id': column 'raw' is mapped twice");
    assertThatThrownBy(() -> read(Map.of("COLUMN_MAPPING_FILE", dir.resolve("none").toString())))
        .hasMessageStartingWith("COLUMN_MAPPING_FILE: cannot read " + dir.resolve("none"));
  }

  @Test
  void theUnknownFieldsColumnCannotBeMapped() {
    assertThatThrownBy(
            () ->
                TableMapping.read(
                    new ConfigReader(
                        Map.of("COLUMN_MAPPING", "extra=$data", "UNKNOWN_FIELDS_COLUMN", "extra")),
                    new TableName("db", "t"),
                    Optional.empty()))
        .hasMessage(
            "COLUMN_MAPPING: maps column 'extra', the UNKNOWN_FIELDS_COLUMN, which the service"
                + " fills with the unknown fields");
  }

  @Test
  void aPathCannotStartAtTheUnknownFieldsColumn() {
    // The service puts the unknown fields there before the path is read: the published extra.a
    // of {"a": "1", "extra": {"a": "2"}} would be stored as the unknown field a, "1".
    assertThatThrownBy(
            () ->
                TableMapping.read(
                    new ConfigReader(
                        Map.of("COLUMN_MAPPING", "x=extra.a", "UNKNOWN_FIELDS_COLUMN", "extra")),
                    new TableName("db", "t"),
                    Optional.empty()))
        .hasMessage(
            "COLUMN_MAPPING: maps column 'x' to a path in 'extra', the UNKNOWN_FIELDS_COLUMN, which"
                + " the service fills with the unknown fields");
  }

  @Test
  void aByteOrderMarkAtTheStartOfTheFileIsNotPartOfTheFirstColumnsName(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("mapping.txt");
    Files.writeString(file, "\uFEFFuser_id=user.id\n");
    assertThat(read(Map.of("COLUMN_MAPPING_FILE", file.toString())).paths().keySet())
        .containsExactly("user_id");
  }
}
