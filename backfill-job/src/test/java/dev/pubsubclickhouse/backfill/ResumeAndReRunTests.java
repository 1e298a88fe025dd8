package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pubsubclickhouse.testing.bigquery.BigQueryTable;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a retried task or a new execution writes, given what earlier ones wrote: it resumes after
 * their pages, writes nothing twice, reads again what may have changed, and recovers the rows
 * refused before.
 */
interface ResumeAndReRunTests extends BackfillFixture {
  @Test
  default void aRetriedTaskResumesAfterThePagesAlreadyWritten() {
    idTables("resumed", 100, "");
    failReadsAfter(40);
    Map<String, String> env = environment();
    String[] args = copyArgs("resumed", "resumed", "--pageRows=20");

    JobRun failed = runAs(env, "resumed-1", args);
    failed.assertFailed().contains("backfill failed: ").contains("injected");
    long before = db().count("resumed");
    assertThat(before).isBetween(1L, 99L);

    int requestsBefore = readRequests().size();
    JobRun resumed = JobRun.of(env, args);

    resumed.assertSucceeded();
    assertThat(db().query("SELECT count(), uniqExact(id), min(id), max(id) FROM resumed"))
        .isEqualTo("100\t100\t0\t99");
    assertThat(resumed.out()).contains("\"resumedAfter\":" + before);
    if (rest()) {
      List<String> reads = readRequests();
      assertThat(reads.get(requestsBefore)).contains("startIndex=40&");
      assertThat(reads.subList(requestsBefore, reads.size())).hasSize(3);
    }
  }

  /**
   * The first execution fails part way for good (its retries used up); a new execution with the
   * same parameters writes the rest, and nothing twice.
   */
  @Test
  default void aNewExecutionAfterAFailedOneWritesTheRestOnce() {
    idTables("unfinished", 100, "");
    failReadsAfter(40);
    String[] args = copyArgs("unfinished", "unfinished", "--pageRows=20");
    Map<String, String> env = environment();
    JobRun failed = runAs(env, "unfinished-1", args);
    failed.assertFailed();
    assertThat(db().count("unfinished")).isBetween(1L, 99L);

    JobRun second = runAs(env, "unfinished-2", args);

    second.assertSucceeded();
    assertThat(storedIds("unfinished")).isEqualTo(ids(0, 100));
  }

  /**
   * A second execution of the same unchanged table into the same unchanged target, with its rows
   * already written by the first (two tasks each): no row is written twice, though the table does
   * not deduplicate.
   */
  @Test
  default void aPlainReRunOfAnUnchangedTableWritesNothingTwice() {
    idTables("rerun", 120, "");
    for (String execution : List.of("rerun-1", "rerun-2")) {
      for (int task = 0; task < 2; task++) {
        Map<String, String> env = forTask(environment(), execution, 2, task);
        JobRun run = copy(env, "rerun", "rerun", "--pageRows=25");
        run.assertSucceeded();
        if (execution.equals("rerun-2")) {
          assertThat(run.out()).contains("\"written\":0");
        }
      }
    }
    assertThat(storedIds("rerun")).isEqualTo(ids(0, 120));
  }

  /**
   * Two executions of an unchanged table read the same snapshot through REST, so their pages have
   * the same tokens. (The Storage Read API splits each session's streams anew.)
   */
  @Test
  default void aPageInsertedAgainIsDroppedByADeduplicatingTable() {
    assumeTrue(rest());
    idTables("dedup", 100, " SETTINGS non_replicated_deduplication_window = 100");
    String[] args = copyArgs("dedup", "dedup", "--pageRows=30", "--checkpointTable=none");

    JobRun first = JobRun.of(environment(), args);
    JobRun again = JobRun.of(environment(), args);

    first.assertSucceeded();
    again.assertSucceeded();
    // loaded_at differs between the runs, so only the deduplication token makes the pages equal.
    assertThat(db().query("SELECT count(), uniqExact(id) FROM dedup")).isEqualTo("100\t100");
    db().flushLogs();
    assertThat(
            db().query(
                    "SELECT count(), uniqExact(Settings['insert_deduplication_token']),"
                        + " countIf(Settings['insert_deduplication_token'] = '')"
                        + " FROM system.query_log WHERE type = 'QueryFinish' AND query_kind = 'Insert'"
                        + " AND has(tables, '"
                        + db().name()
                        + ".dedup')"))
        .as("both runs sent the same four pages with the same four tokens")
        .isEqualTo("8\t4\t0");
  }

  /**
   * A view's definition, and so its last-modified time, stays the same while the rows under it
   * change: a new execution reads it again in full, not on from the earlier execution's positions.
   */
  @Test
  default void aNewExecutionOfAViewReadsItAgainInFull() {
    idTables("view_rerun", 10, "");
    BigQueryTable view = bigQuery().table("ds", "view_rerun");
    view.type = "VIEW";
    String[] args = copyArgs("view_rerun", "view_rerun", "--pageRows=4");
    Map<String, String> env = environment();
    JobRun first = runAs(env, "view-1", args);
    first.assertSucceeded();
    db().execute("TRUNCATE TABLE view_rerun");
    for (int i = 104; i >= 100; i--) {
      view.rows.add(0, row(Integer.toString(i)));
    }

    JobRun second = runAs(env, "view-2", args);

    second.assertSucceeded();
    assertThat(storedIds("view_rerun")).isEqualTo("[0,1,2,3,4,5,6,7,8,9,100,101,102,103,104]");
  }

  /**
   * BigQuery answers a query it ran before from its cache, with the earlier job's result table: a
   * new execution of the query still reads that result in full.
   */
  @Test
  default void aNewExecutionOfAQueryAnsweredFromTheCacheReadsItAgainInFull() {
    String sql = "SELECT id FROM `test-project.ds.cached` WHERE id < 10";
    idQueryTables(sql, "cached_result", 10, "cached");
    Map<String, String> env = environment();
    env.put("QUERY", sql);
    JobRun first = runAs(env, "cached-1", "--clickHouseTable=cached", "--pageRows=4");
    first.assertSucceeded();
    db().execute("TRUNCATE TABLE cached");

    JobRun second = runAs(env, "cached-2", "--clickHouseTable=cached", "--pageRows=4");

    second.assertSucceeded();
    assertThat(storedIds("cached")).isEqualTo(ids(0, 10));
  }

  /**
   * A run dead-letters rows the table refuses (a value too large for its column, a constraint); the
   * user widens the column and drops the constraint, and runs again: the second execution writes
   * exactly the rows refused before, once, and the dead letters are not written again; a third,
   * plain re-run writes nothing. The table does not deduplicate: a row sent twice would stay twice.
   */
  @Test
  default void aRecoveryRunAfterTheTableIsFixedWritesTheRowsRefusedBeforeAndOnlyThose() {
    String oracle =
        idLevelTable("recover", 30, i -> i == 3 ? 300 : i == 17 ? 1000 : i == 25 ? -200 : i);
    db().execute(
            "CREATE TABLE recover (id UInt32, level Int8, CONSTRAINT not_seven CHECK id != 7)"
                + " ENGINE = MergeTree ORDER BY id");
    Map<String, String> env =
        withDeadLetterTable(environmentWithBigQueryDeadLetters(), "recover_errors");
    String[] args = copyArgs("recover", "recover", "--pageRows=10");

    JobRun first = runAs(env, "recover-1", args);
    first.assertSucceeded();
    assertThat(storedIds("recover"))
        .isEqualTo("[0,1,2,4,5,6,8,9,10,11,12,13,14,15,16,18,19,20,21,22,23,24,26,27,28,29]");
    assertThat(first.out()).contains("\"deadLettered\":4");

    db().execute("ALTER TABLE recover MODIFY COLUMN level Int16");
    db().execute("ALTER TABLE recover DROP CONSTRAINT not_seven");
    // The recovery run has two tasks: each tries its share of the refused rows.
    long recovered = 0;
    for (int task = 0; task < 2; task++) {
      forTask(env, "recover-2", 2, task);
      JobRun recovery = JobRun.of(env, args);
      recovery.assertSucceeded();
      assertThat(recovery.out()).contains("\"deadLettered\":0");
      Matcher count = Pattern.compile("\"recovered\":(\\d+),").matcher(recovery.out());
      if (count.find()) {
        recovered += Long.parseLong(count.group(1));
      }
    }

    assertThat(recovered).isEqualTo(4);
    assertThat(db().query("SELECT id, level FROM recover ORDER BY id") + "\n").isEqualTo(oracle);
    assertThat(
            db().query(
                    "SELECT groupArray(raw_message) FROM"
                        + " (SELECT * FROM recover_errors ORDER BY raw_message)"))
        .as("each refused row is dead-lettered once, by the first run")
        .isEqualTo(
            "['{\"id\":17,\"level\":1000}','{\"id\":25,\"level\":-200}',"
                + "'{\"id\":3,\"level\":300}','{\"id\":7,\"level\":7}']");
    assertThat(bigQuery().insertedRows()).hasSize(4);

    forTask(env, "recover-3", 1, 0);
    JobRun plain = JobRun.of(env, args);
    plain.assertSucceeded();
    assertThat(db().query("SELECT id, level FROM recover ORDER BY id") + "\n").isEqualTo(oracle);
    assertThat(plain.out()).contains("\"written\":0");
  }

  /**
   * A recovery whose rows landed but whose checkpoint record did not (the task died between the
   * two) sends the same rows with the same deduplication tokens when it is retried: a deduplicating
   * table keeps each once.
   */
  @Test
  default void aRecoveryRetriedAfterItsRowsLandedSendsTheSameTokens() {
    String oracle = idLevelTable("recover_again", 20, i -> i == 4 || i == 12 ? 300 + i : i);
    db().execute(
            "CREATE TABLE recover_again (id UInt32, level Int8) ENGINE = MergeTree ORDER BY id"
                + " SETTINGS non_replicated_deduplication_window = 100");
    Map<String, String> env = withDeadLetterTable(environment(), "recover_again_errors");
    String[] args =
        copyArgs(
            "recover_again",
            "recover_again",
            "--pageRows=10",
            "--checkpointTable=recover_again_checkpoints");
    JobRun first = runAs(env, "recover-again-1", args);
    first.assertSucceeded();
    db().execute("ALTER TABLE recover_again MODIFY COLUMN level Int16");
    db().execute(
            "ALTER TABLE recover_again_checkpoints ADD CONSTRAINT no_recovery CHECK kind != 'recovery'");

    JobRun interrupted = runAs(env, "recover-again-2", args);
    interrupted.assertFailed();
    assertThat(db().query("SELECT id, level FROM recover_again WHERE id IN (4, 12)"))
        .as("the first page's recovered row landed before its record failed, and the task stopped")
        .isEqualTo("4\t304");
    db().execute("ALTER TABLE recover_again_checkpoints DROP CONSTRAINT no_recovery");
    JobRun retried = JobRun.of(env, args);

    retried.assertSucceeded();
    assertThat(retried.out()).contains("\"recovered\":2");
    assertThat(db().query("SELECT id, level FROM recover_again ORDER BY id") + "\n")
        .isEqualTo(oracle);
    assertThat(db().count("recover_again_errors")).isEqualTo(2);
  }

  /**
   * Rows refused while the job had no dead-letter sink were neither written nor kept (exit 1): the
   * next run, now with a dead-letter table, keeps them there, without a change to the target.
   */
  @Test
  default void rowsRefusedWithNowhereToGoAreDeadLetteredByTheNextRunThatHasASink() {
    BigQueryTable source = bigQuery().table("ds", "unkept", fields("id INTEGER"));
    for (int i = 0; i < 12; i++) {
      source.rows.add(row(Integer.toString(i == 5 ? -5 : i)));
    }
    db().execute("CREATE TABLE unkept (id UInt8) ENGINE = MergeTree ORDER BY id");
    String[] args = copyArgs("unkept", "unkept", "--pageRows=5");
    Map<String, String> env = environment();
    JobRun first = runAs(env, "unkept-1", args);
    first.assertFailed();

    JobRun second = runAs(withDeadLetterTable(env, "unkept_errors"), "unkept-2", args);

    second.assertSucceeded();
    assertThat(db().query("SELECT raw_message, error_message FROM unkept_errors"))
        .isEqualTo(
            "{\"id\":-5}\tsource row 5: column \\'id\\' (UInt8) rejects -5: out of range [0, 255]");
    assertThat(storedIds("unkept")).isEqualTo("[0,1,2,3,4,6,7,8,9,10,11]");
  }
}
