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
    env.put("CLOUD_RUN_EXECUTION", "resumed-1");
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.resumed", "--clickHouseTable=resumed", "--pageRows=20"
    };

    JobRun failed = JobRun.of(env, args);
    assertThat(failed.exitCode()).as(failed.output()).isEqualTo(1);
    assertThat(failed.out()).contains("backfill failed: ").contains("injected");
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
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.unfinished",
      "--clickHouseTable=unfinished",
      "--pageRows=20"
    };
    Map<String, String> env = environment();
    env.put("CLOUD_RUN_EXECUTION", "unfinished-1");
    JobRun failed = JobRun.of(env, args);
    assertThat(failed.exitCode()).as(failed.output()).isEqualTo(1);
    assertThat(db().count("unfinished")).isBetween(1L, 99L);

    env.put("CLOUD_RUN_EXECUTION", "unfinished-2");
    JobRun second = JobRun.of(env, args);

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
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.dedup",
      "--clickHouseTable=dedup",
      "--pageRows=30",
      "--checkpointTable=none"
    };

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
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.view_rerun",
      "--clickHouseTable=view_rerun",
      "--pageRows=4"
    };
    Map<String, String> env = environment();
    env.put("CLOUD_RUN_EXECUTION", "view-1");
    JobRun first = JobRun.of(env, args);
    first.assertSucceeded();
    db().execute("TRUNCATE TABLE view_rerun");
    for (int i = 104; i >= 100; i--) {
      view.rows.add(0, row(Integer.toString(i)));
    }

    env.put("CLOUD_RUN_EXECUTION", "view-2");
    JobRun second = JobRun.of(env, args);

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
    env.put("CLOUD_RUN_EXECUTION", "cached-1");
    JobRun first = JobRun.of(env, "--clickHouseTable=cached", "--pageRows=4");
    first.assertSucceeded();
    db().execute("TRUNCATE TABLE cached");

    env.put("CLOUD_RUN_EXECUTION", "cached-2");
    JobRun second = JobRun.of(env, "--clickHouseTable=cached", "--pageRows=4");

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
    BigQueryTable source = bigQuery().table("ds", "recover", fields("id INTEGER", "level INTEGER"));
    StringBuilder oracle = new StringBuilder();
    for (int i = 0; i < 30; i++) {
      int level = i == 3 ? 300 : i == 17 ? 1000 : i == 25 ? -200 : i;
      source.rows.add(row(Integer.toString(i), Integer.toString(level)));
      oracle.append(i).append('\t').append(level).append('\n');
    }
    db().execute(
            "CREATE TABLE recover (id UInt32, level Int8, CONSTRAINT not_seven CHECK id != 7)"
                + " ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = environment();
    env.remove("OUTPUT_DEADLETTER_TABLE");
    withDeadLetterTable(env, "recover_errors");
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.recover", "--clickHouseTable=recover", "--pageRows=10"
    };

    env.put("CLOUD_RUN_EXECUTION", "recover-1");
    JobRun first = JobRun.of(env, args);
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
    assertThat(db().query("SELECT id, level FROM recover ORDER BY id") + "\n")
        .isEqualTo(oracle.toString());
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
    assertThat(db().query("SELECT id, level FROM recover ORDER BY id") + "\n")
        .isEqualTo(oracle.toString());
    assertThat(plain.out()).contains("\"written\":0");
  }

  /**
   * A recovery whose rows landed but whose checkpoint record did not (the task died between the
   * two) sends the same rows with the same deduplication tokens when it is retried: a deduplicating
   * table keeps each once.
   */
  @Test
  default void aRecoveryRetriedAfterItsRowsLandedSendsTheSameTokens() {
    BigQueryTable source =
        bigQuery().table("ds", "recover_again", fields("id INTEGER", "level INTEGER"));
    StringBuilder oracle = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      int level = i == 4 || i == 12 ? 300 + i : i;
      source.rows.add(row(Integer.toString(i), Integer.toString(level)));
      oracle.append(i).append('\t').append(level).append('\n');
    }
    db().execute(
            "CREATE TABLE recover_again (id UInt32, level Int8) ENGINE = MergeTree ORDER BY id"
                + " SETTINGS non_replicated_deduplication_window = 100");
    Map<String, String> env = withDeadLetterTable(environment(), "recover_again_errors");
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.recover_again",
      "--clickHouseTable=recover_again",
      "--pageRows=10",
      "--checkpointTable=recover_again_checkpoints"
    };
    env.put("CLOUD_RUN_EXECUTION", "recover-again-1");
    JobRun first = JobRun.of(env, args);
    first.assertSucceeded();
    db().execute("ALTER TABLE recover_again MODIFY COLUMN level Int16");
    db().execute(
            "ALTER TABLE recover_again_checkpoints ADD CONSTRAINT no_recovery CHECK kind != 'recovery'");

    env.put("CLOUD_RUN_EXECUTION", "recover-again-2");
    JobRun interrupted = JobRun.of(env, args);
    assertThat(interrupted.exitCode()).as(interrupted.output()).isEqualTo(1);
    assertThat(db().query("SELECT id, level FROM recover_again WHERE id IN (4, 12)"))
        .as("the first page's recovered row landed before its record failed, and the task stopped")
        .isEqualTo("4\t304");
    db().execute("ALTER TABLE recover_again_checkpoints DROP CONSTRAINT no_recovery");
    JobRun retried = JobRun.of(env, args);

    retried.assertSucceeded();
    assertThat(retried.out()).contains("\"recovered\":2");
    assertThat(db().query("SELECT id, level FROM recover_again ORDER BY id") + "\n")
        .isEqualTo(oracle.toString());
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
    String[] args = {
      "--inputTableSpec=" + PROJECT + ":ds.unkept", "--clickHouseTable=unkept", "--pageRows=5"
    };
    Map<String, String> env = environment();
    env.put("CLOUD_RUN_EXECUTION", "unkept-1");
    JobRun first = JobRun.of(env, args);
    assertThat(first.exitCode()).as(first.output()).isEqualTo(1);

    env.put("CLOUD_RUN_EXECUTION", "unkept-2");
    withDeadLetterTable(env, "unkept_errors");
    JobRun second = JobRun.of(env, args);

    second.assertSucceeded();
    assertThat(db().query("SELECT raw_message, error_message FROM unkept_errors"))
        .isEqualTo(
            "{\"id\":-5}\tsource row 5: column \\'id\\' (UInt8) rejects -5: out of range [0, 255]");
    assertThat(storedIds("unkept")).isEqualTo("[0,1,2,3,4,6,7,8,9,10,11]");
  }
}
