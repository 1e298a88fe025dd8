package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.bigquery.BigQueryTable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Rows that do not fit: where they are kept, with what reason, and what happens when the
 * dead-letter table is missing, read-only or failing.
 */
interface DeadLetterTests extends BackfillFixture {
  @Test
  default void rowsThatDoNotFitGoToBothDeadLetterTablesWithTheReasonAndTheJobGoesOn() {
    sourceTable(
        "small",
        fields("id INTEGER", "level INTEGER"),
        row("1", "5"),
        row("2", "300"),
        row("3", "7"));
    db().execute("CREATE TABLE small (id UInt8, level Int8) ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = withDeadLetterTable(environmentWithBigQueryDeadLetters(), "errors");

    JobRun run = copy(env, "small", "small");

    run.assertSucceeded();
    assertThat(db().query("SELECT id, level FROM small ORDER BY id")).isEqualTo("1\t5\n3\t7");
    assertThat(db().query("SELECT raw_message, error_message FROM errors"))
        .isEqualTo(
            "{\"id\":2,\"level\":300}\tsource row 1: column \\'level\\' (Int8) rejects 300: out of"
                + " range [-128, 127]");
    assertThat(bigQuery().requestsTo("/tables"))
        .contains(
            "POST /bigquery/v2/projects/test-project/datasets/backfill_dead_letters/tables?prettyPrint=false");
    assertThat(bigQuery().table("backfill_dead_letters", "small_error_records")).isNotNull();
    assertThat(bigQuery().insertedRows()).hasSize(1);
    assertThat(insertedDeadLetter(0, "payloadString")).isEqualTo("{\"id\":2,\"level\":300}");
    assertThat(insertedDeadLetter(0, "errorMessage"))
        .isEqualTo("source row 1: column 'level' (Int8) rejects 300: out of range [-128, 127]");
    assertThat(run.out()).contains("\"rejected\":1").contains("\"deadLettered\":1");
  }

  @Test
  default void rowsClickHouseItselfRefusesAreFoundBySplittingThePageAndDeadLettered() {
    BigQueryTable checked = bigQuery().table("ds", "checked", fields("id INTEGER"));
    for (int i = 1; i <= 10; i++) {
      checked.rows.add(row(Integer.toString(i)));
    }
    db().execute(
            "CREATE TABLE checked (id UInt8, CONSTRAINT not_seven CHECK id != 7)"
                + " ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = withDeadLetterTable(environment(), "checked_errors");

    JobRun run = copy(env, "checked", "checked");

    run.assertSucceeded();
    assertThat(storedIds("checked")).isEqualTo("[1,2,3,4,5,6,8,9,10]");
    assertThat(db().query("SELECT raw_message FROM checked_errors")).isEqualTo("{\"id\":7}");
    assertThat(db().query("SELECT error_message FROM checked_errors"))
        .startsWith(
            "source row 6: ClickHouse refused it: Code: 469. DB::Exception: Constraint `not_seven`");
  }

  @Test
  default void rejectedRowsWithNowhereToGoMakeTheExitCodeNonZero() {
    sourceTable("nowhere", fields("id INTEGER"), row("-1"));
    db().execute("CREATE TABLE nowhere (id UInt8) ENGINE = MergeTree ORDER BY id");

    JobRun run = copy(environment(), "nowhere", "nowhere");

    run.assertFailed()
        .contains("1 rejected rows have no dead-letter table to keep them")
        .contains("column 'id' (UInt8) rejects -1: out of range [0, 255]");
  }

  @Test
  default void aMissingDeadLetterDatasetIsNamedAtStartWithWhatToDo() {
    idTables("no_dataset", 5, "");
    bigQuery().missingDataset("backfill_dead_letters");
    Map<String, String> env = environmentWithBigQueryDeadLetters();

    for (String dryRun : List.of("--dryRun=false", "--dryRun")) {
      JobRun run = copy(env, "no_dataset", "no_dataset", dryRun);

      run.assertFailed()
          .contains(
              "backfill failed before reading: the dead-letter dataset"
                  + " test-project:backfill_dead_letters does not exist: create it (Terraform's"
                  + " backfill job creates one and grants roles/bigquery.dataEditor on it), or set"
                  + " OUTPUT_DEADLETTER_DATASET / OUTPUT_DEADLETTER_TABLE (none turns dead letters"
                  + " off)");
    }
    assertThat(db().count("no_dataset")).isZero();
    assertThat(readRequests()).isEmpty();
  }

  @Test
  default void aDeadLetterTableTheJobCannotWriteIsNamedAtStart() {
    idTables("read_only", 5, "");
    bigQuery().table("rejects", "read_only_errors", DEAD_LETTER_FIELDS);
    bigQuery().readOnlyTable("read_only_errors");

    JobRun run =
        copy(
            environment(),
            "read_only",
            "read_only",
            "--outputDeadletterTable=" + PROJECT + ":rejects.read_only_errors");

    run.assertFailed()
        .contains(
            "the job cannot write its dead letters into test-project:rejects.read_only_errors:"
                + " its service account lacks bigquery.tables.updateData"
                + " (roles/bigquery.dataEditor on dataset test-project:rejects)");
    assertThat(db().count("read_only")).isZero();
  }

  /** tabledata.insertAll of the dead-letter table answers 503 twice: retried, kept once. */
  @Test
  default void aTransientFailureOfTheDeadLetterTableIsRetried() {
    sourceTable("dl_retry", fields("id INTEGER"), row("1"), row("300"));
    db().execute("CREATE TABLE dl_retry (id UInt8) ENGINE = MergeTree ORDER BY id");
    bigQuery().failNext("/insertAll", 503, 2);
    Map<String, String> env = environmentWithBigQueryDeadLetters();

    JobRun run = copy(env, "dl_retry", "dl_retry");

    run.assertSucceeded();
    assertThat(bigQuery().unusedFaults()).isEmpty();
    assertThat(bigQuery().insertedRows()).hasSize(1);
    assertThat(insertedDeadLetter(0, "payloadString")).isEqualTo("{\"id\":300}");
    assertThat(db().query("SELECT groupArray(id) FROM dl_retry")).isEqualTo("[1]");
  }

  /** A dead-letter table that keeps failing stops the task, naming the step. */
  @Test
  default void aDeadLetterTableThatKeepsFailingStopsTheTaskNamingTheStep() {
    sourceTable("dl_down", fields("id INTEGER"), row("300"));
    db().execute("CREATE TABLE dl_down (id UInt8) ENGINE = MergeTree ORDER BY id");
    bigQuery().failNext("/insertAll", 503, 100);
    Map<String, String> env = environmentWithBigQueryDeadLetters();

    JobRun run = copy(env, "dl_down", "dl_down");

    run.assertFailed()
        .contains(
            "BigQuery tabledata.insertAll (test-project:backfill_dead_letters.dl_down_error_records)"
                + " failed after 4 attempts: HTTP 503");
    assertThat(bigQuery().requestsTo("/insertAll")).hasSize(4);
  }
}
