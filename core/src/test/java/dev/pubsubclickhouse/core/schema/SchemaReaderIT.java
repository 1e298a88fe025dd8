package dev.pubsubclickhouse.core.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.clickhouse.data.ClickHouseColumn;
import com.clickhouse.data.ClickHouseDataType;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Schemas as the real server describes them, and the type grammar as the client parses it. */
@ClickHouseTest
class SchemaReaderIT {
  private final TestDatabase database;
  private final SchemaReader reader;

  SchemaReaderIT(TestDatabase database) {
    this.database = database;
    this.reader = new SchemaReader(database.client());
  }

  @Test
  void readsNamesTypesAndDefaultKindsInTableOrder() {
    database.execute(
        "CREATE TABLE kinds (a UInt32, d String DEFAULT 'x', m UInt64 MATERIALIZED a * 2,"
            + " l UInt64 ALIAS a + 1, e String EPHEMERAL, n Nullable(String)) ENGINE = MergeTree ORDER BY a");
    TableSchema schema = reader.read(new TableName(database.name(), "kinds"));
    assertThat(schema.columns())
        .extracting(ColumnDefinition::name, ColumnDefinition::type, ColumnDefinition::defaultKind)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("a", "UInt32", DefaultKind.NONE),
            org.assertj.core.groups.Tuple.tuple("d", "String", DefaultKind.DEFAULT),
            org.assertj.core.groups.Tuple.tuple("m", "UInt64", DefaultKind.MATERIALIZED),
            org.assertj.core.groups.Tuple.tuple("l", "UInt64", DefaultKind.ALIAS),
            org.assertj.core.groups.Tuple.tuple("e", "String", DefaultKind.EPHEMERAL),
            org.assertj.core.groups.Tuple.tuple("n", "Nullable(String)", DefaultKind.NONE));
    assertThat(schema.column("d").orElseThrow().defaultExpression()).isEqualTo("'x'");
  }

  /** A Distributed table needs a cluster: DistributedTargetIT reads one on two shards. */
  @Test
  void readsTheEngine() {
    database.execute("CREATE TABLE merge_tree (a UInt32) ENGINE = MergeTree ORDER BY a");
    database.execute("CREATE TABLE nothing_kept (a UInt32) ENGINE = Null");
    TableSchema mergeTree = reader.read(new TableName(database.name(), "merge_tree"));
    assertThat(mergeTree.engine()).isEqualTo("MergeTree");
    assertThat(mergeTree.distributed()).isFalse();
    assertThat(reader.read(new TableName(database.name(), "nothing_kept")).engine())
        .isEqualTo("Null");
  }

  @Test
  void aMissingTableIsNamed() {
    assertThatThrownBy(() -> reader.read(new TableName(database.name(), "nothing_here")))
        .isInstanceOf(TableNotFoundException.class)
        .hasMessage(
            "table "
                + database.name()
                + ".nothing_here does not exist or is not visible to this user");
  }

  @Test
  void theTypeGrammarIsParsedAsTheServerWritesIt() {
    database.execute(
        "CREATE TABLE grammar ("
            + " e Enum8('it''s' = -1, 'a,b' = 2, 'x = y' = 3),"
            + " d32 Decimal32(3), d Decimal(38, 9), d256 Decimal256(20),"
            + " t DateTime('Europe/Berlin'), t64 DateTime64(6, 'Asia/Tokyo'),"
            + " lc LowCardinality(Nullable(String)),"
            + " nested Map(String, Array(Tuple(a Nullable(Int32), `b c` Array(String)))),"
            + " unnamed Tuple(Int8, String), fs FixedString(4), u UUID, ip6 IPv6, b Bool, j JSON"
            + ") ENGINE = MergeTree ORDER BY tuple()");
    List<ColumnDefinition> columns =
        reader.read(new TableName(database.name(), "grammar")).columns();
    ClickHouseColumn e = columns.get(0).parsed();
    assertThat(e.getDataType()).isEqualTo(ClickHouseDataType.Enum8);
    assertThat(Arrays.asList(e.getEnumConstants().getNames()))
        .containsExactly("it's", "a,b", "x = y");
    assertThat(e.getEnumConstants().getValues()).containsExactly(-1, 2, 3);
    assertThat(columns.get(1).parsed().getPrecision()).isEqualTo(9);
    assertThat(columns.get(1).parsed().getScale()).isEqualTo(3);
    assertThat(columns.get(2).parsed().getPrecision()).isEqualTo(38);
    assertThat(columns.get(3).parsed().getPrecision()).isEqualTo(76);
    assertThat(columns.get(3).parsed().getScale()).isEqualTo(20);
    assertThat(columns.get(4).parsed().getTimeZone().getID()).isEqualTo("Europe/Berlin");
    assertThat(columns.get(5).parsed().getScale()).isEqualTo(6);
    assertThat(columns.get(5).parsed().getTimeZone().getID()).isEqualTo("Asia/Tokyo");
    ClickHouseColumn lc = columns.get(6).parsed();
    assertThat(lc.isLowCardinality()).isTrue();
    assertThat(lc.isNullable()).isTrue();
    ClickHouseColumn element = columns.get(7).parsed().getValueInfo().getNestedColumns().get(0);
    assertThat(element.getDataType()).isEqualTo(ClickHouseDataType.Tuple);
    assertThat(element.getNestedColumns().get(0).isNullable()).isTrue();
    assertThat(element.getNestedColumns())
        .extracting(ClickHouseColumn::getColumnName)
        .containsExactly("a", "b c");
    assertThat(columns.get(8).parsed().getNestedColumns()).hasSize(2);
    assertThat(columns.get(9).parsed().getPrecision()).isEqualTo(4);
    assertThat(columns.subList(10, 14))
        .extracting(c -> c.parsed().getDataType())
        .containsExactly(
            ClickHouseDataType.UUID,
            ClickHouseDataType.IPv6,
            ClickHouseDataType.Bool,
            ClickHouseDataType.JSON);
  }
}
