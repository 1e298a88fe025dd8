package dev.pubsubclickhouse.backfill.write;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.backfill.source.RowRange;
import dev.pubsubclickhouse.backfill.write.Checkpoints.PageRecord;
import dev.pubsubclickhouse.backfill.write.Checkpoints.Refused;
import dev.pubsubclickhouse.backfill.write.Checkpoints.RefusedPage;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The checkpoint table against the real ClickHouse: what its queries find in what was recorded. */
@ClickHouseTest
class CheckpointsIT {
  private static final String ORIGIN = "table:p:ds.t@1767000000000#100";

  private final TestDatabase db;
  private TableName table;
  private ClickHouseInserter inserter;
  private Instant now = Instant.parse("2026-01-01T00:00:00Z");

  CheckpointsIT(TestDatabase db) {
    this.db = db;
  }

  /** A checkpoint table of the test's own. */
  @BeforeEach
  void inserter(org.junit.jupiter.api.TestInfo test) {
    table = new TableName(db.name(), test.getTestMethod().orElseThrow().getName());
    ClickHouseConfig config =
        ClickHouseConfig.read(
            new ConfigReader(
                Map.of(
                    "CLICKHOUSE_URL", db.server().url(),
                    "CLICKHOUSE_USER", db.server().user(),
                    "CLICKHOUSE_PASSWORD", db.server().password(),
                    "CLICKHOUSE_DATABASE", db.name(),
                    "CLICKHOUSE_TABLE", "target")),
            new SecretManagerAccess(Map.of()));
    inserter =
        new ClickHouseInserter(
            ClickHouseHttp.open(config, "checkpoints-test"),
            InsertFormat.supportedBy(db.client()),
            config.insertOptions());
  }

  /** A task's view of the table, one millisecond after the last one's: records are ordered. */
  private Checkpoints task(int index, int count) throws Exception {
    now = now.plusMillis(1);
    return Checkpoints.open(
        db.client(),
        table,
        inserter,
        new Checkpoints.Writer(db.name() + ".target", index, count, "execution-1"),
        Clock.fixed(now, ZoneOffset.UTC));
  }

  private static String row(long id, String text) {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    row.put("id", id);
    row.put("text", text);
    return RowText.write(row);
  }

  @Test
  void aCheckpointTableOfAnOlderJobGainsTheNewColumnsAndItsPagesStillCount() throws Exception {
    db.execute(
        "CREATE TABLE "
            + table.quoted()
            + " (target String, source String, start_index UInt64,"
            + " row_count UInt64, written UInt64, rejected UInt64, task_index UInt32,"
            + " task_count UInt32, execution String, written_at DateTime64(3, 'UTC'))"
            + " ENGINE = MergeTree ORDER BY (target, source, start_index)");
    db.execute(
        "INSERT INTO "
            + table.quoted()
            + " VALUES ('"
            + db.name()
            + ".target', 'unit', 0, 10, 10, 0, 0, 1, 'old', now64(3))");

    Checkpoints checkpoints = task(0, 1);

    assertThat(checkpoints.unwritten("unit", new RowRange(0, 100)))
        .containsExactly(new RowRange(10, 100));
    assertThat(
            db.query(
                "SELECT origin, kind, refused_positions, refusals_kept, target_version"
                    + " FROM "
                    + table.quoted()))
        .isEqualTo("\tpage\t[]\ttrue\t");
    assertThat(checkpoints.refusedPages("")).isEmpty();
  }

  @Test
  void aPagesNewestRecordSaysWhichOfItsRefusedRowsAreStillMissing() throws Exception {
    String three = row(3, "a ' \\ \" \t\n ☃");
    String seven = row(7, "[\"a\",1]");
    task(0, 1)
        .record(
            new PageRecord(
                "unit",
                ORIGIN,
                0,
                10,
                8,
                new Refused(List.of(3L, 7L), List.of(three, seven), true, "v1")));
    task(0, 1).record(new PageRecord("unit", ORIGIN, 10, 10, 10, Refused.NONE));
    task(0, 1)
        .record(
            new PageRecord(
                "other",
                "another origin",
                0,
                5,
                4,
                new Refused(List.of(1L), List.of(row(1, "x")), true, "v1")));

    Checkpoints checkpoints = task(0, 1);
    assertThat(checkpoints.refusedPages(ORIGIN))
        .containsExactly(new RefusedPage("unit", 0, 10, 2, true, "v1"));
    assertThat(checkpoints.refusedRows(ORIGIN, checkpoints.refusedPages(ORIGIN).get(0)))
        .isEqualTo(new Refused(List.of(3L, 7L), List.of(three, seven), true, "v1"));

    task(0, 1)
        .recordRecovery(
            new PageRecord(
                "unit", ORIGIN, 0, 10, 1, new Refused(List.of(7L), List.of(seven), true, "v2")));
    checkpoints = task(0, 1);
    assertThat(checkpoints.refusedPages(ORIGIN))
        .containsExactly(new RefusedPage("unit", 0, 10, 1, true, "v2"));
    assertThat(checkpoints.refusedRows(ORIGIN, checkpoints.refusedPages(ORIGIN).get(0)).rows())
        .containsExactly(seven);

    task(0, 1).recordRecovery(new PageRecord("unit", ORIGIN, 0, 10, 1, Refused.NONE));
    checkpoints = task(0, 1);
    assertThat(checkpoints.refusedPages(ORIGIN)).isEmpty();
    assertThat(checkpoints.unwritten("unit", new RowRange(0, 100)))
        .containsExactly(new RowRange(20, 100));
  }

  @Test
  void theTasksOfAnExecutionShareTheRefusedPagesWithoutOverlap() throws Exception {
    Checkpoints recorder = task(0, 1);
    for (int page = 0; page < 30; page++) {
      recorder.record(
          new PageRecord(
              "unit",
              ORIGIN,
              page * 10L,
              10,
              9,
              new Refused(List.of(page * 10L), List.of(row(page, "r")), false, "v1")));
    }

    List<Long> shared = new ArrayList<>();
    for (int index = 0; index < 3; index++) {
      List<RefusedPage> share = task(index, 3).refusedPages(ORIGIN);
      assertThat(share).as("task %d's share", index).isNotEmpty();
      share.forEach(page -> shared.add(page.startIndex()));
    }

    assertThat(shared).hasSize(30).doesNotHaveDuplicates();
  }

  @Test
  void whatIsLeftOfARangeIsEveryPartThatNoRecordedPageCovers() throws Exception {
    Checkpoints recorder = task(0, 2);
    for (long start : new long[] {0, 30, 40, 70}) {
      recorder.record(new PageRecord("unit", ORIGIN, start, 10, 10, Refused.NONE));
    }
    recorder.record(new PageRecord("other unit", ORIGIN, 10, 10, 10, Refused.NONE));

    Checkpoints checkpoints = task(1, 3);

    assertThat(checkpoints.unwritten("unit", new RowRange(0, 100)))
        .containsExactly(new RowRange(10, 30), new RowRange(50, 70), new RowRange(80, 100));
    assertThat(checkpoints.unwritten("unit", new RowRange(35, 75)))
        .containsExactly(new RowRange(50, 70));
    assertThat(checkpoints.unwritten("unit", new RowRange(30, 50))).isEmpty();
    assertThat(checkpoints.unwritten("unit", new RowRange(95, 100)))
        .containsExactly(new RowRange(95, 100));
  }

  @Test
  void aStreamReadToItsEndIsFinishedAndItsEndCoversNothing() throws Exception {
    Checkpoints checkpoints = task(0, 1);
    checkpoints.record(new PageRecord("s#0", ORIGIN, 0, 7, 7, Refused.NONE));
    checkpoints.recordEnd("s#0", ORIGIN, 7);
    checkpoints.record(new PageRecord("s#1", ORIGIN, 0, 7, 7, Refused.NONE));
    checkpoints.recordEnd("s#2", "another origin", 0);

    Set<String> finished = new HashSet<>(checkpoints.finishedUnits(ORIGIN));

    assertThat(finished).containsExactly("s#0");
    assertThat(checkpoints.unwritten("s#0", new RowRange(0, Long.MAX_VALUE)))
        .containsExactly(new RowRange(7, Long.MAX_VALUE));
    assertThat(checkpoints.refusedPages(ORIGIN)).isEmpty();
  }
}
