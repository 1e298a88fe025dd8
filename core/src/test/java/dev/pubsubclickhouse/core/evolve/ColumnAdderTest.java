package dev.pubsubclickhouse.core.evolve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.clickhouse.client.api.ServerException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.ColumnSources;
import dev.pubsubclickhouse.core.encode.FieldPath;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.SchemaSource;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.core.write.TargetTable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

/**
 * The rules of adding columns, against a table kept in memory whose ALTER behaves as ClickHouse's
 * {@code ADD COLUMN IF NOT EXISTS} does. The real ClickHouse is in the push service's
 * SchemaEvolutionIT.
 */
class ColumnAdderTest {
  private static final TableName TABLE = new TableName("db", "events");
  private static final Pattern ADD = Pattern.compile("ADD COLUMN IF NOT EXISTS `([^`]+)` (.+)$");
  private static final Set<String> SERVICE_COLUMNS = Set.of("_ingested_at", "extra");

  /** A table in memory: its columns, and the ALTERs it ran. */
  private static final class MemoryTable implements SchemaSource {
    final List<ColumnDefinition> columns = new CopyOnWriteArrayList<>();
    final List<String> alters = new CopyOnWriteArrayList<>();
    final AtomicInteger reads = new AtomicInteger();
    Exception nextFailure;

    MemoryTable(String... namesAndTypes) {
      for (int i = 0; i < namesAndTypes.length; i += 2) {
        columns.add(ColumnDefinition.of(namesAndTypes[i], namesAndTypes[i + 1]));
      }
    }

    @Override
    public TableSchema read(TableName table) {
      reads.incrementAndGet();
      return new TableSchema(table, List.copyOf(columns));
    }

    void alter(String sql) throws Exception {
      if (nextFailure != null) {
        Exception failure = nextFailure;
        nextFailure = null;
        throw failure;
      }
      alters.add(sql);
      Matcher m = ADD.matcher(sql);
      assertThat(m.find()).as(sql).isTrue();
      if (columns.stream().noneMatch(c -> c.name().equals(m.group(1)))) {
        columns.add(ColumnDefinition.of(m.group(1), m.group(2)));
      }
    }
  }

  /** Records the events as lines. */
  private static final class Recorded implements EvolutionEvents {
    final List<String> lines = new CopyOnWriteArrayList<>();

    @Override
    public void columnAdded(TableName table, String column, String type) {
      lines.add("added " + column + " " + type);
    }

    @Override
    public void columnTypeDiffers(TableName table, String column, String inferred, String actual) {
      lines.add("differs " + column + " " + inferred + " -> " + actual);
    }

    @Override
    public void fieldNotAdded(TableName table, String field, String reason) {
      lines.add("not added " + field + ": " + reason);
    }
  }

  private final MemoryTable memory = new MemoryTable("id", "UInt32");
  private final Recorded events = new Recorded();
  private final AtomicLong clock = new AtomicLong(1_000);

  private ColumnAdder adder(int maxNew, int maxColumns, Optional<String> cluster) {
    return new ColumnAdder(
        new EvolutionPolicy("Nullable(String)", maxNew, Duration.ofHours(1), maxColumns, cluster),
        SERVICE_COLUMNS,
        memory::alter,
        events,
        clock::get);
  }

  private static List<JsonNode> rows(String json) throws Exception {
    return JsonPayloads.rows(json.getBytes());
  }

  @Test
  void aNewFieldGetsANullableColumnOfItsValuesTypeBeforeTheMessageIsEncoded() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    TargetTable.Snapshot schema =
        adder(10, 100, Optional.empty())
            .columnsFor(table, rows("[{\"id\":1,\"n\":null},{\"id\":2,\"n\":5,\"s\":\"x\"}]"));
    assertThat(schema.columns()).containsExactlyInAnyOrder("id", "n", "s");
    assertThat(memory.alters)
        .containsExactly(
            "ALTER TABLE `db`.`events` ADD COLUMN IF NOT EXISTS `n` Nullable(Int64)",
            "ALTER TABLE `db`.`events` ADD COLUMN IF NOT EXISTS `s` Nullable(String)");
    assertThat(events.lines).containsExactly("added n Nullable(Int64)", "added s Nullable(String)");
    assertThat(table.current()).isSameAs(schema);
  }

  @Test
  void aFieldThatIsOnlyNullWaitsForAValue() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    adder(10, 100, Optional.empty()).columnsFor(table, rows("{\"id\":1,\"n\":null}"));
    assertThat(memory.alters).isEmpty();
    assertThat(table.current().columns()).containsExactlyInAnyOrder("id");
  }

  @Test
  void aColumnAnotherInstanceAddedWithAnotherTypeIsKeptAndReported() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    memory.columns.add(ColumnDefinition.of("n", "Nullable(String)")); // the other instance's
    TargetTable.Snapshot schema =
        adder(10, 100, Optional.empty()).columnsFor(table, rows("{\"id\":1,\"n\":5}"));
    assertThat(memory.alters).as("no ALTER for a column that is there").isEmpty();
    assertThat(schema.columns()).contains("n");
    assertThat(events.lines).containsExactly("differs n Nullable(Int64) -> Nullable(String)");
  }

  @Test
  void theAlterNamesTheClusterWhenOneIsConfigured() {
    assertThat(adder(1, 100, Optional.of("prod")).alterStatement(TABLE, "n", "Nullable(Int64)"))
        .isEqualTo(
            "ALTER TABLE `db`.`events` ON CLUSTER `prod` ADD COLUMN IF NOT EXISTS `n`"
                + " Nullable(Int64)");
  }

  @Test
  void badNamesAndFieldsBeyondTheLimitGetNoColumnAndAreReportedOnce() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder = adder(2, 100, Optional.empty());
    for (int i = 0; i < 3; i++) {
      adder.columnsFor(table, rows("{\"id\":1,\"a\":1,\"b\":2,\"c\":3,\"bad-name\":4}"));
    }
    assertThat(table.current().columns()).containsExactlyInAnyOrder("id", "a", "b");
    assertThat(events.lines)
        .containsExactly(
            "added a Nullable(Int64)",
            "added b Nullable(Int64)",
            "not added c: more than 2 new columns in 60 minutes (SCHEMA_EVOLUTION_MAX_NEW_COLUMNS)",
            "not added bad-name: not a plain column name (a letter or '_', then letters, digits"
                + " or '_', at most 128)");
    clock.addAndGet(Duration.ofHours(1).toNanos());
    adder.columnsFor(table, rows("{\"id\":1,\"c\":3,\"bad-name\":4}"));
    assertThat(table.current().columns())
        .as("the next period")
        .containsExactlyInAnyOrder("id", "a", "b", "c");
  }

  @Test
  void aFieldNamedAsAColumnTheServiceFillsGetsNoColumn() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder = adder(10, 100, Optional.empty());
    for (int i = 0; i < 2; i++) {
      adder.columnsFor(table, rows("{\"id\":1,\"extra\":5,\"_ingested_at\":\"hello\"}"));
    }
    assertThat(memory.alters).isEmpty();
    assertThat(table.current().columns()).containsExactly("id");
    assertThat(events.lines)
        .containsExactly(
            "not added extra: the service fills column extra itself",
            "not added _ingested_at: the service fills column _ingested_at itself");
  }

  @Test
  void aFieldNamedAsAMappedColumnIsNotANewFieldAndReadsNothing() throws Exception {
    memory.columns.add(ColumnDefinition.of("user_id", "UInt64"));
    TargetTable table =
        new TargetTable(
            TABLE, memory, new ColumnSources(Map.of("user_id", FieldPath.parse("user.id"))));
    ColumnAdder adder = adder(10, 100, Optional.empty());
    int readsBefore = memory.reads.get();
    for (int i = 0; i < 5; i++) {
      adder.columnsFor(table, rows("{\"id\":1,\"user\":{\"id\":7},\"user_id\":\"u-7\"}"));
    }
    assertThat(memory.reads.get() - readsBefore)
        .as("the table is read again for a field its mapped column already has")
        .isZero();
    assertThat(memory.alters).isEmpty();
    assertThat(events.lines).isEmpty();
  }

  @Test
  void aTableWithTheMostColumnsAllowedGetsNoMore() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    adder(10, 2, Optional.empty()).columnsFor(table, rows("{\"id\":1,\"a\":1,\"b\":2}"));
    assertThat(table.current().columns()).containsExactlyInAnyOrder("id", "a");
    assertThat(events.lines.get(1)).startsWith("not added b: the table has 2 columns");
  }

  @Test
  void aFloodOfNewNamesBeyondTheBudgetReadsTheTableNoMore() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder = adder(2, 100, Optional.empty());
    for (int i = 0; i < 100; i++) {
      adder.columnsFor(table, rows("{\"id\":1,\"f" + i + "\":1}"));
    }
    assertThat(table.current().columns()).containsExactlyInAnyOrder("id", "f0", "f1");
    assertThat(memory.reads)
        .as("at start, before and after each ALTER, and once while the budget is spent")
        .hasValue(6);
    assertThat(events.lines).as("each declined field is reported").hasSize(100);
  }

  @Test
  void aColumnAnotherInstanceAddedIsUsedWhileThisOnesBudgetIsSpent() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder = adder(1, 100, Optional.empty());
    adder.columnsFor(table, rows("{\"id\":1,\"a\":1}"));
    adder.columnsFor(table, rows("{\"id\":1,\"b\":1}"));
    assertThat(table.current().columns()).as("the budget of 1 is spent").doesNotContain("b");
    memory.columns.add(ColumnDefinition.of("b", "Nullable(Int64)")); // another instance's
    clock.addAndGet(ColumnAdder.REREAD_WHILE_SPENT.toNanos());
    TargetTable.Snapshot schema = adder.columnsFor(table, rows("{\"id\":1,\"b\":2}"));
    assertThat(schema.columns())
        .as("looked at again within REREAD_WHILE_SPENT, not after the hour")
        .contains("b");
    assertThat(memory.alters).hasSize(1);
  }

  @Test
  void aFloodOfNewNamesIntoAFullTableReadsTheTableNoMore() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder = adder(10, 2, Optional.empty());
    for (int i = 0; i < 100; i++) {
      adder.columnsFor(table, rows("{\"id\":1,\"f" + i + "\":1}"));
    }
    assertThat(table.current().columns()).containsExactlyInAnyOrder("id", "f0");
    assertThat(memory.reads)
        .as("at start, before and after the ALTER, and once while the table is full")
        .hasValue(4);
  }

  @Test
  void clickHouseNotAnsweringLeavesTheMessageForLaterAndANewTryAddsTheColumn() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder = adder(1, 100, Optional.empty());
    memory.nextFailure = new IOException("connection refused");
    assertThatThrownBy(() -> adder.columnsFor(table, rows("{\"id\":1,\"a\":1}")))
        .isInstanceOf(ColumnsUnavailableException.class)
        .hasMessageContaining("new field 'a'")
        .hasMessageContaining("connection refused");
    adder.columnsFor(table, rows("{\"id\":1,\"a\":1}"));
    assertThat(table.current().columns())
        .as("the failed try gave its place in the budget back")
        .containsExactlyInAnyOrder("id", "a");
  }

  @Test
  void anAlterThatFailsForAReasonOutsideTheColumnLeavesTheMessageForLaterNotWithoutTheField()
      throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder = adder(10, 100, Optional.empty());
    for (int code : new int[] {473, 236, 439, 201, 243, 497, 48}) {
      memory.nextFailure =
          new ServerException(code, "Code: " + code + ". DB::Exception: failed", 500, "q");
      assertThatThrownBy(() -> adder.columnsFor(table, rows("{\"id\":1,\"a\":1}")))
          .as("code %d", code)
          .isInstanceOf(ColumnsUnavailableException.class)
          .hasMessageContaining("new field 'a'");
    }
    assertThat(events.lines).as("no field declined").isEmpty();
    adder.columnsFor(table, rows("{\"id\":1,\"a\":1}"));
    assertThat(table.current().columns()).containsExactlyInAnyOrder("id", "a");
  }

  @Test
  void aTypeClickHouseRefusesDeclinesTheFieldForAWhile() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder = adder(10, 100, Optional.empty());
    memory.nextFailure =
        new ServerException(
            43,
            "Code: 43. DB::Exception: Nested type Array(String) cannot be inside Nullable type."
                + " (ILLEGAL_TYPE_OF_ARGUMENT)",
            500,
            "q");
    TargetTable.Snapshot schema = adder.columnsFor(table, rows("{\"id\":1,\"a\":[1]}"));
    assertThat(schema.columns()).containsExactly("id");
    assertThat(events.lines)
        .singleElement(InstanceOfAssertFactories.STRING)
        .startsWith("not added a: ClickHouse refused to add it: Code: 43.");
    adder.columnsFor(table, rows("{\"id\":1,\"a\":[1]}"));
    assertThat(memory.alters).as("not tried again within the cooldown").isEmpty();
    clock.addAndGet(ColumnAdder.REFUSAL_COOLDOWN.toNanos());
    assertThat(adder.columnsFor(table, rows("{\"id\":1,\"a\":[1]}")).columns())
        .containsExactlyInAnyOrder("id", "a");
  }

  @Test
  void duplicateColumnMeansTheColumnIsThere() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder =
        new ColumnAdder(
            new EvolutionPolicy("Nullable(String)", 10, Duration.ofHours(1), 100, Optional.empty()),
            SERVICE_COLUMNS,
            sql -> {
              memory.alter(sql); // the column is added, yet ClickHouse answers it was there
              throw new ServerException(15, "Code: 15. DB::Exception: DUPLICATE_COLUMN", 500, "q");
            },
            events,
            clock::get);
    TargetTable.Snapshot schema = adder.columnsFor(table, rows("{\"id\":1,\"a\":1}"));
    assertThat(schema.columns()).containsExactlyInAnyOrder("id", "a");
    assertThat(events.lines).containsExactly("added a Nullable(Int64)");
  }

  @Test
  void manyRequestsWithTheSameNewFieldRunOneAlter() throws Exception {
    TargetTable table = new TargetTable(TABLE, memory);
    ColumnAdder adder = adder(10, 100, Optional.empty());
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 16; i++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  assertThat(adder.columnsFor(table, rows("{\"id\":1,\"a\":1}")).columns())
                      .contains("a");
                } catch (Throwable e) {
                  failures.add(e);
                }
              });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(failures).isEmpty();
    assertThat(memory.alters).hasSizeLessThanOrEqualTo(16).isNotEmpty();
    assertThat(table.current().columns()).containsExactlyInAnyOrder("id", "a");
  }
}
