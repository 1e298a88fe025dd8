package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.List;
import java.util.Map;

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
}
