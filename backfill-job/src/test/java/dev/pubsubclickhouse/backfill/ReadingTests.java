package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.bigquery.BigQueryTable;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How the job reads a source: page by page, with a row restriction, through a query's result, and
 * shared between the tasks of one execution, which all read one snapshot.
 */
interface ReadingTests extends BackfillFixture {
  @Test
  default void aTableIsReadPageByPageAndEveryRowIsWritten() {
    BigQueryTable events =
        bigQuery()
            .table(
                "ds",
                "events",
                fields("event_time DATETIME", "service STRING", "level STRING", "message STRING"));
    for (int i = 0; i < 25; i++) {
      events.rows.add(row("2025-12-30T12:00:" + String.format("%02d", i), "api", "INFO", "m" + i));
    }
    db().execute(
            "CREATE TABLE events (event_time DateTime, service String, level String, message String)"
                + " ENGINE = MergeTree ORDER BY event_time");

    JobRun run = copy(environment(), "events", "events", "--pageRows=10");

    run.assertSucceeded();
    assertThat(
            db().query(
                    "SELECT groupArray(message) FROM (SELECT * FROM events ORDER BY event_time)"))
        .isEqualTo(
            "['m0','m1','m2','m3','m4','m5','m6','m7','m8','m9','m10','m11','m12','m13','m14',"
                + "'m15','m16','m17','m18','m19','m20','m21','m22','m23','m24']");
    assertThat(db().query("SELECT * FROM events ORDER BY event_time LIMIT 1"))
        .isEqualTo("2025-12-30 12:00:00\tapi\tINFO\tm0");
    if (rest()) {
      assertThat(bigQuery().requestsTo("/data?"))
          .containsExactly(
              "GET /bigquery/v2/projects/test-project/datasets/_anon/tables/events_snapshot1/data?maxResults=10&startIndex=0&prettyPrint=false&formatOptions.useInt64Timestamp=true",
              "GET /bigquery/v2/projects/test-project/datasets/_anon/tables/events_snapshot1/data?maxResults=10&pageToken=at-10&prettyPrint=false&formatOptions.useInt64Timestamp=true",
              "GET /bigquery/v2/projects/test-project/datasets/_anon/tables/events_snapshot1/data?maxResults=5&pageToken=at-20&prettyPrint=false&formatOptions.useInt64Timestamp=true");
    } else {
      assertThat(storage().createdSessions()).hasSize(1);
      assertThat(storage().createdSessions().get(0).getTableModifiers().hasSnapshotTime()).isTrue();
    }
    assertThat(run.out()).contains("\"message\":\"backfill finished\"").contains("\"written\":25");
  }

  @Test
  default void aRowRestrictionReadsOnlyTheRowsThatMatch() {
    idTables("restricted", 100, "");

    JobRun run =
        copy(environment(), "restricted", "restricted", "--rowRestriction=id >= 10 AND id < 20");

    run.assertSucceeded();
    assertThat(storedIds("restricted")).isEqualTo("[10,11,12,13,14,15,16,17,18,19]");
    assertThat(run.out()).contains("where id >= 10 AND id < 20");
  }

  @Test
  default void tasksShareTheRowsSoThatTogetherTheyWriteEveryRowExactlyOnce() {
    idTables("sharded", 1000, "");
    for (int task = 0; task < 3; task++) {
      Map<String, String> env = forTask(environment(), "sharded-1", 3, task);
      JobRun run = copy(env, "sharded", "sharded", "--pageRows=150");
      run.assertSucceeded();
    }
    assertThat(db().query("SELECT count(), uniqExact(id), min(id), max(id) FROM sharded"))
        .isEqualTo("1000\t1000\t0\t999");
    if (rest()) {
      assertThat(bigQuery().requestsTo("/data?").get(0)).contains("maxResults=150&startIndex=0&");
      assertThat(bigQuery().requestsTo("/data?"))
          .as("7 pages of 150 rows: tasks of 2, 2 and 3 pages")
          .anyMatch(r -> r.contains("startIndex=300&"))
          .anyMatch(r -> r.contains("startIndex=600&"));
      assertThat(bigQuery().requestsTo("POST /bigquery/v2/projects/test-project/jobs")).hasSize(3);
      assertThat(bigQuery().snapshotTables()).hasSize(1);
    } else {
      assertThat(storage().createdSessions()).hasSize(1);
      assertThat(storage().createdSessions().get(0).getStreamsCount()).isEqualTo(6);
    }
  }

  @Test
  default void aQueryRunsOnceAsAJobAndItsResultTableIsShardedAcrossTasks() {
    String sql = "SELECT id FROM `test-project.ds.big` WHERE id < 10";
    idQueryTables(sql, "result1", 10, "from_query");
    for (int task = 0; task < 2; task++) {
      Map<String, String> env = forTask(environment(), "backfill-abc12", 2, task);
      env.put("QUERY", sql);
      // Two pages of 5 rows, one for each task: a task's share is whole pages.
      JobRun run =
          JobRun.of(env, "--clickHouseTable=from_query", "--queryLocation=US", "--pageRows=5");
      run.assertSucceeded();
    }

    assertThat(storedIds("from_query")).isEqualTo("[0,1,2,3,4,5,6,7,8,9]");
    assertThat(bigQuery().requestsTo("/jobs"))
        .filteredOn(r -> r.startsWith("POST"))
        .hasSize(2); // the second task's insert is refused (409) and it reads the first's job
    if (rest()) {
      assertThat(bigQuery().requestsTo("/result1/data")).hasSize(2);
    } else {
      assertThat(storage().createdSessions()).hasSize(1);
      assertThat(storage().createdSessions().get(0).getTable()).endsWith("/tables/result1");
    }
  }

  /**
   * A table written while the execution runs: rows appended and changed between task starts and
   * while the first task reads. Every task reads the snapshot the first one pinned: each of its
   * rows exactly once, with its values as of that time, and nothing newer.
   */
  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  default void tasksOfOneExecutionReadOneSnapshotOfATableThatIsWrittenMeanwhile(int tasks) {
    String name = "live" + tasks;
    BigQueryTable live = bigQuery().table("ds", name, fields("id INTEGER", "v STRING"));
    for (int i = 0; i < 200; i++) {
      live.rows.add(row(Integer.toString(i), "a" + i));
    }
    db().execute("CREATE TABLE " + name + " (id UInt32, v String) ENGINE = MergeTree ORDER BY id");
    int[] next = {200};
    Runnable write =
        () -> {
          for (int i = 0; i < 15; i++) {
            live.append(row(Integer.toString(next[0]), "a" + next[0]));
            next[0]++;
          }
          for (int i = 0; i < 200; i += 20) {
            live.update(i, row(Integer.toString(i), "changed" + next[0]));
          }
        };
    duringReads(write);
    String snapshotTime = null;
    for (int task = 0; task < tasks; task++) {
      Map<String, String> env = forTask(environment(), name + "-1", tasks, task);
      JobRun run = copy(env, name, name, "--pageRows=25");
      run.assertSucceeded();
      Matcher pinned = Pattern.compile("\"snapshotTime\":\"([^\"]+)\"").matcher(run.out());
      assertThat(pinned.find()).as(run.output()).isTrue();
      if (snapshotTime == null) {
        snapshotTime = pinned.group(1);
      }
      assertThat(pinned.group(1)).isEqualTo(snapshotTime);
      write.run();
    }

    List<com.fasterxml.jackson.databind.JsonNode> expected =
        live.snapshotAt(java.time.Instant.parse(snapshotTime).toEpochMilli());
    assertThat(expected).hasSize(200);
    assertThat(live.rows.size()).isGreaterThan(expected.size());
    StringBuilder oracle = new StringBuilder();
    expected.stream()
        .sorted(java.util.Comparator.comparingLong(r -> r.path("f").path(0).path("v").asLong()))
        .forEach(
            r ->
                oracle
                    .append(r.path("f").path(0).path("v").asText())
                    .append('\t')
                    .append(r.path("f").path(1).path("v").asText())
                    .append('\n'));
    assertThat(db().query("SELECT id, v FROM " + name + " ORDER BY id, v") + "\n")
        .isEqualTo(oracle.toString());
  }

  @Test
  default void aTaskStartedWithOtherParametersThanItsExecutionFailsLoudly() {
    idTables("replanned", 50, "");
    Map<String, String> env = forTask(environment(), "replanned-1", 2, 0);
    JobRun first = copy(env, "replanned", "replanned", "--where=id < 20");
    first.assertSucceeded();

    env.put("CLOUD_RUN_TASK_INDEX", "1");
    JobRun second = copy(env, "replanned", "replanned");

    second
        .assertFailed()
        .contains("backfill failed before reading: execution replanned-1 ")
        .contains("for other parameters than this task's");
  }
}
