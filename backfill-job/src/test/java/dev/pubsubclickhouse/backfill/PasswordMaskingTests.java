package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.fields;
import static dev.pubsubclickhouse.testing.bigquery.BigQueryRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.LocalClickHouse;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The ClickHouse password never appears in what the job prints or keeps. */
interface PasswordMaskingTests extends BackfillFixture {
  @Test
  default void thePasswordAppearsNowhereInTheOutput() {
    sourceTable("secretive", fields("id INTEGER"), row("1"));
    db().execute("CREATE TABLE secretive (id UInt8) ENGINE = MergeTree ORDER BY id");
    Map<String, String> env = environment();
    env.put("CLICKHOUSE_PASSWORD", "s3cr3t-value");

    JobRun run =
        copy(env, "secretive", "secretive", "--clickHousePassword=s3cr3t-flag-value", "--dryRun");

    assertThat(run.output()).doesNotContain("s3cr3t");
  }

  /**
   * A source value that happens to be the password, refused by its column: the reason that quotes
   * it is printed, and kept in the dead letter, with the password masked (the row itself is kept as
   * it was read).
   */
  @Test
  default void aRefusedValueThatIsThePasswordIsPrintedMasked() {
    Assumptions.assumeTrue(
        db().server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    String password = LocalClickHouse.PIPELINE_PASSWORD;
    sourceTable("leaky", fields("id STRING"), row(password));
    db().execute("CREATE TABLE leaky (id UInt8) ENGINE = MergeTree ORDER BY id");
    db().execute(
            "CREATE TABLE leaky_errors (raw_message String, error_message String, stack_trace String,"
                + " failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
    Map<String, String> env = environment();
    env.put("CLICKHOUSE_USER", LocalClickHouse.PIPELINE_USER);
    env.put("CLICKHOUSE_PASSWORD", password);

    JobRun logged = copy(env, "leaky", "leaky");
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", "leaky_errors");
    JobRun deadLettered = copy(env, "leaky", "leaky");

    assertThat(logged.output()).contains("[redacted]").doesNotContain(password);
    deadLettered.assertSucceeded();
    assertThat(deadLettered.output()).doesNotContain(password);
    assertThat(db().query("SELECT error_message FROM leaky_errors"))
        .contains("[redacted]")
        .doesNotContain(password);
  }
}
