package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The end-to-end suite reading through REST: tabledata.list pages of the snapshot's query. */
@ClickHouseTest
class BackfillRestIT extends BackfillSuite {
  BackfillRestIT(TestDatabase db) {
    super(db);
  }

  @Override
  public Map<String, String> readerEnvironment() {
    return Map.of("PAGE_READER", "rest");
  }

  @Override
  public boolean rest() {
    return true;
  }

  @Override
  public void failReadsAfter(int rows) {
    // Pages of 20 rows: the third page read fails for good.
    bigQuery.failAfter("/data?", rows / 20, 400, 1);
  }

  @Override
  public void breakReadsTwice() {
    bigQuery.failAfter("/data?", 1, 503, 2);
  }

  @Override
  public void duringReads(Runnable action) {
    bigQuery.onRequest("/data?", 2, action);
  }

  @Override
  public List<String> readRequests() {
    return bigQuery.requestsTo("/data?");
  }

  @Test
  void theClientLibraryPageReaderReadsTheSameRows() {
    idTables("client_reader", 35, "");

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ".ds.client_reader",
            "--clickHouseTable=client_reader",
            "--pageRows=10",
            "--pageReader=client");

    run.assertSucceeded();
    assertThat(storedIds("client_reader"))
        .isEqualTo(
            "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,"
                + "31,32,33,34]");
    assertThat(bigQuery.requestsTo("/data?")).hasSize(4);
  }

  /**
   * Pages are cut from row 0 in steps of PAGE_ROWS, whatever the task count: a new execution of an
   * unchanged table with another --tasks sends the same pages with the same tokens, so a
   * deduplicating table drops them even without checkpoints.
   */
  @Test
  void aNewExecutionWithAnotherTaskCountSendsTheSamePagesWithTheSameTokens() {
    idTables("retasked", 100, " SETTINGS non_replicated_deduplication_window = 100");

    runTasks("retasked-1", 2, "retasked", "--pageRows=30", "--checkpointTable=none");
    runTasks("retasked-2", 3, "retasked", "--pageRows=30", "--checkpointTable=none");

    assertThat(storedIds("retasked")).isEqualTo(ids(0, 100));
    db.flushLogs();
    assertThat(
            db.query(
                "SELECT count(), uniqExact(Settings['insert_deduplication_token'])"
                    + " FROM system.query_log WHERE type = 'QueryFinish' AND query_kind = 'Insert'"
                    + " AND has(tables, '"
                    + db.name()
                    + ".retasked')"))
        .as("both executions sent the four pages of rows 0, 30, 60 and 90 with the same tokens")
        .isEqualTo("8\t4");
  }

  /**
   * The first execution (2 tasks) stops part way: its first task after 20 of its 50 rows, its
   * second task writes all of its own. A new execution with 3 tasks writes only the rows the first
   * did not, into a table that does not deduplicate: each task skips every page recorded in its
   * share, not only those at its start.
   */
  @Test
  void aNewExecutionWithAnotherTaskCountWritesOnlyWhatTheLastOneDidNot() {
    idTables("retasked_rest", 100, "");
    bigQuery.failAfter("/data?", 2, 400, 1);
    JobRun stopped = runTask("retasked-rest-1", 0, 2, "retasked_rest", "--pageRows=10");
    stopped.assertFailed();
    JobRun whole = runTask("retasked-rest-1", 1, 2, "retasked_rest", "--pageRows=10");
    whole.assertSucceeded();
    assertThat(storedIds("retasked_rest"))
        .isEqualTo(list(IntStream.concat(IntStream.range(0, 20), IntStream.range(50, 100))));
    int readsBefore = bigQuery.requestsTo("/data?").size();

    List<JobRun> runs = runTasks("retasked-rest-2", 3, "retasked_rest", "--pageRows=10");

    assertThat(runs)
        .extracting(BackfillRestIT::written)
        .as("rows 20 to 49 were missing: 20 to 29 are task 0's, 30 to 49 task 1's")
        .containsExactly(10L, 20L, 0L);
    assertThat(storedIds("retasked_rest")).isEqualTo(ids(0, 100));
    List<String> reads = bigQuery.requestsTo("/data?");
    assertThat(reads.subList(readsBefore, reads.size()))
        .extracting(r -> r.replaceAll(".*/data\\?([^&]*&[^&]*)&.*", "$1"))
        .containsExactly(
            "maxResults=10&startIndex=20",
            "maxResults=10&startIndex=30",
            "maxResults=10&pageToken=at-40");
    assertThat(
            db.query(
                "SELECT groupArray(start_index) FROM (SELECT start_index FROM _backfill_checkpoints"
                    + " WHERE target = '"
                    + db.name()
                    + ".retasked_rest' ORDER BY start_index)"))
        .as("each page of 10 rows recorded once, by one execution or the other")
        .isEqualTo(list(IntStream.range(0, 10).map(page -> page * 10)));
  }

  /**
   * BigQuery answers fewer rows than maxResults when a page would exceed its size limit: the
   * answers are gathered into the page of PAGE_ROWS rows they belong to, so the pages stay those of
   * the table, not of the answers.
   */
  @Test
  void shortAnswersAreGatheredIntoWholePages() {
    idTables("short_answers", 35, "");
    bigQuery.answerAtMostRows(7);

    JobRun run =
        JobRun.of(
            environment(),
            "--inputTableSpec=" + PROJECT + ".ds.short_answers",
            "--clickHouseTable=short_answers",
            "--pageRows=10");

    run.assertSucceeded();
    assertThat(storedIds("short_answers")).isEqualTo(ids(0, 35));
    assertThat(
            db.query(
                "SELECT groupArray((start_index, row_count)) FROM (SELECT start_index, row_count"
                    + " FROM _backfill_checkpoints WHERE target = '"
                    + db.name()
                    + ".short_answers' ORDER BY start_index)"))
        .isEqualTo("[(0,10),(10,10),(20,10),(30,5)]");
  }

  /** The rows a task wrote, as its last line says. */
  private static long written(JobRun run) {
    Matcher written = Pattern.compile("\"written\":(\\d+)").matcher(run.out());
    long last = -1;
    while (written.find()) {
      last = Long.parseLong(written.group(1));
    }
    return last;
  }

  /** "[a,b,...]" as ClickHouse prints groupArray. */
  private static String list(IntStream values) {
    return values.mapToObj(Integer::toString).collect(Collectors.joining(",", "[", "]"));
  }

  /** Runs every task of an execution, one after another; each must succeed. */
  private List<JobRun> runTasks(String execution, int tasks, String table, String... args) {
    List<JobRun> runs = new ArrayList<>();
    for (int task = 0; task < tasks; task++) {
      JobRun run = runTask(execution, task, tasks, table, args);
      run.assertSucceeded();
      runs.add(run);
    }
    return runs;
  }

  private JobRun runTask(String execution, int task, int tasks, String table, String... args) {
    return copy(forTask(environment(), execution, tasks, task), table, table, args);
  }
}
