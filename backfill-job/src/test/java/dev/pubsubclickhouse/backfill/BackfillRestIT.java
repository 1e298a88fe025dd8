package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The end-to-end suite reading through REST: tabledata.list pages of the snapshot's query. */
@ClickHouseTest
class BackfillRestIT extends BackfillSuite {
  BackfillRestIT(TestDatabase db) {
    super(db);
  }

  @Override
  Map<String, String> readerEnvironment() {
    return Map.of("PAGE_READER", "rest");
  }

  @Override
  boolean rest() {
    return true;
  }

  @Override
  void failReadsAfter(int rows) {
    // Pages of 20 rows: the third page read fails for good.
    bigQuery.failAfter("/data?", rows / 20, 400, 1);
  }

  @Override
  void breakReadsTwice() {
    bigQuery.failAfter("/data?", 1, 503, 2);
  }

  @Override
  void duringReads(Runnable action) {
    bigQuery.onRequest("/data?", 2, action);
  }

  @Override
  List<String> readRequests() {
    return bigQuery.requestsTo("/data?");
  }

  @Test
  void theClientLibraryPageReaderReadsTheSameRows() {
    idTables("client_reader", 35, "");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + FakeBigQuery.PROJECT + ".ds.client_reader",
            "--clickHouseTable=client_reader",
            "--pageRows=10",
            "--pageReader=client");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(db.query("SELECT groupArray(id) FROM (SELECT id FROM client_reader ORDER BY id)"))
        .isEqualTo(
            "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,"
                + "31,32,33,34]");
    assertThat(bigQuery.requestsTo("/data?")).hasSize(4);
  }
}
