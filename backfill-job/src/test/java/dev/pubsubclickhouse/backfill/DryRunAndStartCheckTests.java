package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A run that cannot succeed stops before it reads, with one line saying why; a dry run checks the
 * same and writes nothing.
 */
interface DryRunAndStartCheckTests extends BackfillFixture {
  @Test
  default void aDryRunPrintsTheColumnPlanAndWritesNothing() {
    sourceTable(
        "planned", fields("id INTEGER", "name STRING", "unused FLOAT"), row("1", "a", "1.0"));
    db().execute(
            "CREATE TABLE planned (id UInt8, name String, note String DEFAULT 'none',"
                + " score Nullable(Float32)) ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = withDeadLetterTable(environment(), "never_created");

    JobRun run = copy(env, "planned", "planned", "--dryRun");

    run.assertSucceeded();
    assertThat(run.out())
        .contains(
            "column  clickhouse type    bigquery field  how\n"
                + "id      UInt8              id INT64        checked per value; misfits are dead-lettered\n"
                + "name    String             name STRING     exact\n"
                + "note    String             (none)          DEFAULT 'none'\n"
                + "score   Nullable(Float32)  (none)          NULL\n"
                + "ignored BigQuery fields (no such column): unused\n")
        .contains("dry run: parameters, schemas and type mapping are valid");
    assertThat(db().count("planned")).isZero();
    assertThat(db().query("EXISTS TABLE never_created")).isEqualTo("0");
    assertThat(db().query("EXISTS TABLE dry_run_checkpoints")).isEqualTo("0");
    assertThat(bigQuery().requestsTo("/data?")).isEmpty();
  }

  @Test
  default void aDryRunOfAQueryTakesTheSchemaFromBigQuerysDryRunAndRunsNothing() {
    String sql = "SELECT id, name FROM `test-project.ds.people`";
    bigQuery().queryResult(sql, "_anon", "people_result");
    bigQuery().table("_anon", "people_result", fields("id INTEGER", "name STRING"));
    db().execute("CREATE TABLE people (id UInt64, name String) ENGINE = MergeTree ORDER BY id");

    JobRun run = JobRun.of(environment(), "--query=" + sql, "--clickHouseTable=people", "--dryRun");

    run.assertSucceeded();
    assertThat(run.out())
        .contains(
            "id      UInt64           id INT64        checked per value; misfits are dead-lettered\n");
    assertThat(bigQuery().requestsTo("/jobs")).hasSize(1);
    assertThat(bigQuery().requestsTo("/queries")).isEmpty();
    assertThat(bigQuery().requestsTo("/data?")).isEmpty();
  }

  @Test
  default void aWrongParameterStopsTheJobWithOneLineBeforeAnyRequest() {
    JobRun run = copy(environment(), "t", "t", "--maxRetries=lots");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo("backfill: --maxRetries (MAX_RETRIES): expected a whole number, got 'lots'\n");
    assertThat(bigQuery().requests()).isEmpty();
  }

  @Test
  default void aMissingClickHouseTableIsNamed() {
    sourceTable("orphan", fields("id INTEGER"), row("1"));

    JobRun run = copy(environment(), "orphan", "absent");

    run.assertFailed()
        .contains(
            "backfill failed before reading: table "
                + db().name()
                + ".absent does not exist or is not visible to this user");
  }

  @Test
  default void aColumnBigQueryCannotFillStopsTheJobBeforeAnyRead() {
    sourceTable("lacking", fields("id INTEGER"), row("1"));
    db().execute(
            "CREATE TABLE lacking (id UInt8, region String, ts DateTime) ENGINE = MergeTree ORDER BY id");

    JobRun run = copy(environment(), "lacking", "lacking");

    run.assertFailed()
        .contains(
            "backfill failed before reading: BigQuery and "
                + db().name()
                + ".lacking do not fit: column 'region' (String) has no BigQuery field of that name,"
                + " no DEFAULT and is not Nullable; column 'ts' (DateTime) has no BigQuery field of"
                + " that name, no DEFAULT and is not Nullable");
    assertThat(bigQuery().requestsTo("/data?")).isEmpty();
  }

  @Test
  default void anIncompatibleTypeStopsTheJobBeforeAnyRead() {
    sourceTable("wrong_type", fields("id INTEGER", "flag BOOLEAN"), row("1", "true"));
    db().execute("CREATE TABLE wrong_type (id UInt8, flag Date) ENGINE = MergeTree ORDER BY id");

    JobRun run = copy(environment(), "wrong_type", "wrong_type");

    run.assertFailed().contains("column 'flag' (Date) cannot take BigQuery BOOL");
  }
}
