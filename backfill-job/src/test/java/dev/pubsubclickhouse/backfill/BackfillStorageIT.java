package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.bigquery.BigQueryRows;
import dev.pubsubclickhouse.testing.bigquery.BigQueryTable;
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
  public Map<String, String> readerEnvironment() {
    return Map.of("PAGE_READER", "storage", "BIGQUERY_STORAGE_ENDPOINT", storage.endpoint());
  }

  @Override
  public boolean rest() {
    return false;
  }

  @Override
  public void failReadsAfter(int rows) {
    storage.breakStreamsAfter(rows / 2, 1, Status.INVALID_ARGUMENT);
  }

  @Override
  public void breakReadsTwice() {
    storage.breakStreamsAfter(7, 2);
  }

  @Override
  public void duringReads(Runnable action) {
    storage.onRead(1, action);
  }

  @Override
  public List<String> readRequests() {
    return storage.reads();
  }

  @Test
  void aStreamThatBreaksPartWayIsReadOnFromTheOffsetOfItsFirstMissingRow() {
    idTables("resumed_stream", 30, "");
    storage.breakStreamsAfter(14, 1);

    JobRun run = copy(environment(), "resumed_stream", "resumed_stream", "--streamsPerTask=1");

    run.assertSucceeded();
    String stream = storage.createdSessions().get(0).getStreams(0).getName();
    assertThat(storage.reads()).containsExactly(stream + "@0", stream + "@14");
    assertThat(db.query("SELECT count(), uniqExact(id), min(id), max(id) FROM resumed_stream"))
        .isEqualTo("30\t30\t0\t29");
  }

  /** A failure to open the Storage Read API names it, not ClickHouse, which was reachable. */
  @Test
  void storageCredentialsThatCannotBeReadStopTheJobNamingTheStorageReadApi() {
    idTables("no_credentials", 3, "");
    Map<String, String> env = new java.util.HashMap<>(environment());
    env.put("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/service-account.json");

    JobRun run = copy(env, "no_credentials", "no_credentials");

    run.assertFailed()
        .contains("backfill failed before reading: cannot use BigQuery's Storage Read API: ")
        .doesNotContain("cannot use ClickHouse");
    assertThat(storage.createdSessions()).isEmpty();
  }

  /**
   * An execution fails part way, and its read session expires before the next one: a new session
   * would split the table anew and write again what the first wrote, so the new execution stops
   * with one line saying so, and writes nothing.
   */
  @Test
  void aNewExecutionAfterAFailedOneWhoseSessionExpiredStopsWithOneLine() {
    idTables("expired", 100, "");
    storage.sessionLifetime(java.time.Duration.ofMinutes(5));
    failReadsAfter(40);
    String[] args = copyArgs("expired", "expired", "--pageRows=20");
    Map<String, String> env = environment();
    JobRun failed = runAs(env, "expired-1", args);
    failed.assertFailed();
    String before = storedIds("expired");

    JobRun second = runAs(env, "expired-2", args);

    second.assertFailed();
    String session = storage.createdSessions().get(0).getName();
    assertThat(second.out())
        .contains(
            "backfill failed before reading: execution expired-1 wrote only part of"
                + " test-project:ds.expired into "
                + db.name()
                + ".expired, and its read session expires at ")
        .contains("WHERE JSONExtractString(value, 'session') = '" + session + "'\"");
    assertThat(storage.createdSessions()).hasSize(1);
    assertThat(storedIds("expired")).isEqualTo(before);
  }

  /**
   * Rows streamed into a table may not change its last-modified time or row count: a table with a
   * streaming buffer is never taken as unchanged, so a new execution reads it again (with a
   * warning) and the streamed rows are not skipped.
   */
  @Test
  void aTableWithAStreamingBufferIsReadAgainNotTakenAsUnchanged() {
    idTables("streamed", 20, "");
    String[] args = copyArgs("streamed", "streamed");
    Map<String, String> env = environment();
    JobRun first = runAs(env, "streamed-1", args);
    first.assertSucceeded();
    BigQueryTable table = bigQuery.table("ds", "streamed");
    long lastModified = table.lastModified;
    for (int i = 20; i < 25; i++) {
      table.stream(BigQueryRows.row(Integer.toString(i)));
    }
    assertThat(table.lastModified).isEqualTo(lastModified);

    JobRun second = runAs(env, "streamed-2", args);

    second.assertSucceeded();
    assertThat(second.out())
        .contains(
            "test-project:ds.streamed has rows in its streaming buffer, so it cannot be known"
                + " unchanged since execution streamed-1 wrote it into "
                + db.name()
                + ".streamed: this execution reads all of it again");
    assertThat(storage.createdSessions()).hasSize(2);
    assertThat(db.query("SELECT uniqExact(id), min(id), max(id) FROM streamed"))
        .isEqualTo("25\t0\t24");
  }
}
