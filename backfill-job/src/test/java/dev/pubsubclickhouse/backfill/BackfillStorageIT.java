package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import io.grpc.Status;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The end-to-end suite reading through the Storage Read API: Avro streams of a read session. */
@ClickHouseTest
class BackfillStorageIT extends BackfillSuite {
  BackfillStorageIT(TestDatabase db) {
    super(db);
  }

  @Override
  Map<String, String> readerEnvironment() {
    return Map.of("PAGE_READER", "storage", "BIGQUERY_STORAGE_ENDPOINT", storage.endpoint());
  }

  @Override
  boolean rest() {
    return false;
  }

  @Override
  void failReadsAfter(int rows) {
    storage.breakStreamsAfter(rows / 2, 1, Status.INVALID_ARGUMENT);
  }

  @Override
  void breakReadsTwice() {
    storage.breakStreamsAfter(7, 2);
  }

  @Override
  void duringReads(Runnable action) {
    storage.onRead(1, action);
  }

  @Override
  List<String> readRequests() {
    return storage.reads();
  }

  @Test
  void aStreamThatBreaksPartWayIsReadOnFromTheOffsetOfItsFirstMissingRow() {
    idTables("resumed_stream", 30, "");
    storage.breakStreamsAfter(14, 1);

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + FakeBigQuery.PROJECT + ":ds.resumed_stream",
            "--clickHouseTable=resumed_stream",
            "--streamsPerTask=1");

    assertThat(run.exitCode()).as(run.output()).isZero();
    String stream = storage.createdSessions().get(0).getStreams(0).getName();
    assertThat(storage.reads()).containsExactly(stream + "@0", stream + "@14");
    assertThat(db.query("SELECT count(), uniqExact(id), min(id), max(id) FROM resumed_stream"))
        .isEqualTo("30\t30\t0\t29");
  }
}
