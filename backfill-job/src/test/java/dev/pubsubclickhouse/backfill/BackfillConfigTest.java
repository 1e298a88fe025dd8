package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.bigquery.TableId;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BackfillConfigTest {
  private static final Map<String, String> CLICKHOUSE =
      Map.of("CLICKHOUSE_URL", "http://localhost:8123", "CLICKHOUSE_TABLE", "logs");

  private static BackfillConfig read(Map<String, String> env, String... args) {
    return BackfillConfig.read(env, args);
  }

  @Test
  void aPushServiceVariableInTheSameEnvironmentIsNotCalledMisspelt() {
    // A backfill often runs with the service's settings: CLICKHOUSE_TABLES is the service's own
    // variable, not a misspelt CLICKHOUSE_TABLE; CLICKHOUSE_TABEL still is.
    BackfillConfig config =
        read(
            Map.of(
                "CLICKHOUSE_TABLES", "a,b",
                "CLICKHOUSE_TABEL", "c",
                "CLICKHOUSE_URL", "http://127.0.0.1:8123",
                "CLICKHOUSE_TABLE", "events"),
            "--inputTableSpec=p:ds.events");

    assertThat(config.notes())
        .containsExactly("CLICKHOUSE_TABEL is not a parameter; did you mean CLICKHOUSE_TABLE?");
  }

  @Test
  void aTemplateUsersParameterListWorksUnchanged() {
    BackfillConfig config =
        read(
            Map.of(),
            "--inputTableSpec=my-project:analytics.logs",
            "--jdbcUrl=jdbc:clickhouse://ch.example.com:8443/analytics?ssl=true&sslmode=NONE",
            "--clickHouseUsername=loader",
            "--clickHousePassword=pw",
            "--clickHouseTable=logs",
            "--maxInsertBlockSize=500000",
            "--insertDistributedSync=false",
            "--insertQuorum=2",
            "--insertDeduplicate=true",
            "--maxRetries=3",
            "--outputDeadletterTable=my-project:errors.logs_failed",
            "--useLegacySql=false",
            "--queryLocation=EU",
            "--queryTempDataset=tmp",
            "--KMSEncryptionKey=projects/p/locations/eu/keyRings/r/cryptoKeys/k");

    assertThat(config.inputTable()).contains(TableId.of("my-project", "analytics", "logs"));
    assertThat(config.project()).isEqualTo("my-project");
    assertThat(config.clickHouse().url()).isEqualTo(URI.create("https://ch.example.com:8443"));
    assertThat(config.clickHouse().table().toString()).isEqualTo("analytics.logs");
    assertThat(config.clickHouse().user()).isEqualTo("loader");
    assertThat(config.clickHouse().password().reveal()).isEqualTo("pw");
    assertThat(config.clickHouse().insertOptions().maxInsertBlockSize()).isEqualTo(500_000);
    assertThat(config.clickHouse().insertOptions().distributedSync()).isFalse();
    assertThat(config.clickHouse().insertOptions().quorum()).contains(2);
    assertThat(config.clickHouse().insertOptions().maxRetries()).isEqualTo(3);
    assertThat(config.deadLetterTable())
        .contains(TableId.of("my-project", "errors", "logs_failed"));
    assertThat(config.queryLocation()).contains("EU");
    assertThat(config.notes()).containsExactly("jdbcUrl options without effect here: sslmode");
  }

  @Test
  void everyFlagAlsoWorksAsAnEnvironmentVariable() {
    Map<String, String> env = new HashMap<>(CLICKHOUSE);
    env.put("INPUT_TABLE_SPEC", "p.ds.t");
    env.put("MAX_INSERT_BLOCK_SIZE", "1000");
    env.put("PAGE_ROWS", "100000");
    env.put("DRY_RUN", "true");
    env.put("CLOUD_RUN_TASK_INDEX", "3");
    env.put("CLOUD_RUN_TASK_COUNT", "8");
    env.put("CLOUD_RUN_EXECUTION", "job-x7k2p");

    BackfillConfig config = read(env);

    assertThat(config.inputTable()).contains(TableId.of("p", "ds", "t"));
    assertThat(config.clickHouse().insertOptions().maxInsertBlockSize()).isEqualTo(1000);
    assertThat(config.read().pageRows()).isEqualTo(100_000);
    assertThat(config.dryRun()).isTrue();
    assertThat(config.taskIndex()).isEqualTo(3);
    assertThat(config.taskCount()).isEqualTo(8);
    assertThat(config.executionId()).isEqualTo("job-x7k2p");
  }

  @Test
  void theDefaultsAreTheTemplatesAndTheDeadLetterTableIsNamedAfterTheInputInItsOwnDataset() {
    Map<String, String> env = new HashMap<>(CLICKHOUSE);
    env.put("INPUT_TABLE_SPEC", "p:ds.events");

    BackfillConfig config = read(env);

    assertThat(config.clickHouse().insertOptions().maxInsertBlockSize()).isEqualTo(1_000_000);
    assertThat(config.clickHouse().insertOptions().maxRetries()).isEqualTo(5);
    assertThat(config.deadLetterTable())
        .contains(TableId.of("p", "backfill_dead_letters", "events_error_records"));
    assertThat(config.checkpointTable().map(Object::toString))
        .contains("default._backfill_checkpoints");
    assertThat(config.read().pageRows()).isEqualTo(50_000);
    assertThat(config.read().reader()).isEqualTo(BackfillConfig.PageReaderKind.STORAGE);
    assertThat(config.read().streamsPerTask()).isEqualTo(2);
    assertThat(config.taskCount()).isEqualTo(1);
  }

  @Test
  void theDeadLetterDatasetIsAParameterWithTheTemplatesStyleOfName() {
    Map<String, String> env = new HashMap<>(CLICKHOUSE);
    env.put("INPUT_TABLE_SPEC", "p:ds.events");
    env.put("OUTPUT_DEADLETTER_DATASET", "ops:rejects");

    assertThat(read(env).deadLetterTable())
        .contains(TableId.of("ops", "rejects", "events_error_records"));
    assertThat(read(env, "--outputDeadletterDataset=rejected_rows").deadLetterTable())
        .contains(TableId.of("p", "rejected_rows", "events_error_records"));
    assertThatThrownBy(() -> read(env, "--outputDeadletterDataset=a b"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "--outputDeadletterDataset (OUTPUT_DEADLETTER_DATASET): expected dataset or"
                + " project:dataset, got 'a b'");
  }

  @Test
  void restIsTheDefaultReaderAgainstAnEmulatorAndTheStorageReadApiElsewhere() {
    Map<String, String> env = new HashMap<>(CLICKHOUSE);
    env.put("INPUT_TABLE_SPEC", "p:ds.events");
    env.put("BIGQUERY_ENDPOINT", "http://127.0.0.1:9050");

    assertThat(read(env).read().reader()).isEqualTo(BackfillConfig.PageReaderKind.REST);
    assertThat(read(env, "--pageReader=storage").read().reader())
        .isEqualTo(BackfillConfig.PageReaderKind.STORAGE);
    assertThatThrownBy(() -> read(env, "--pageReader=stream"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--pageReader (PAGE_READER): expected storage, rest or client, got 'stream'");
  }

  @Test
  void aRowRestrictionIsTakenAsWhereAndOnlyForATable() {
    Map<String, String> env = new HashMap<>(CLICKHOUSE);
    env.put("INPUT_TABLE_SPEC", "p:ds.events");

    assertThat(read(env, "--where=ts >= '2025-12-01'").read().rowRestriction())
        .contains("ts >= '2025-12-01'");
    assertThat(read(env, "--rowRestriction=id < 5").read().rowRestriction()).contains("id < 5");
    env.put("QUERY", "SELECT 1");
    env.put("GOOGLE_CLOUD_PROJECT", "p");
    assertThatThrownBy(() -> read(env, "--where=id < 5"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("applies to --inputTableSpec");
  }

  @Test
  void severalStorageTasksNeedTheTableThatPinsTheirSession() {
    Map<String, String> env = new HashMap<>(CLICKHOUSE);
    env.put("INPUT_TABLE_SPEC", "p:ds.events");
    env.put("CLOUD_RUN_TASK_COUNT", "4");

    assertThatThrownBy(() -> read(env, "--checkpointTable=none"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("is needed by 4 tasks reading with the Storage Read API");
    assertThat(read(env, "--checkpointTable=none", "--pageReader=rest").taskCount()).isEqualTo(4);
  }

  @Test
  void aQueryWinsOverTheInputTableAndNeedsAProject() {
    Map<String, String> env = new HashMap<>(CLICKHOUSE);
    env.put("INPUT_TABLE_SPEC", "p:ds.events");
    env.put("QUERY", "SELECT 1");
    env.put("GOOGLE_CLOUD_PROJECT", "billing");

    BackfillConfig config = read(env);

    assertThat(config.query()).contains("SELECT 1");
    assertThat(config.inputTable()).isEmpty();
    assertThat(config.project()).isEqualTo("billing");
    assertThat(config.deadLetterTable())
        .contains(TableId.of("billing", "backfill_dead_letters", "query_error_records"));
    assertThat(config.notes())
        .containsExactly(
            "both --query and --inputTableSpec are set: reading the query, as the template does");

    env.remove("GOOGLE_CLOUD_PROJECT");
    assertThatThrownBy(() -> read(env))
        .hasMessage(
            "--project (GOOGLE_CLOUD_PROJECT): is required to run a query (or give --inputTableSpec)");
  }

  @Test
  void theDeadLetterTableCanBeTurnedOff() {
    assertThat(
            read(CLICKHOUSE, "--inputTableSpec=p:d.t", "--outputDeadletterTable=none")
                .deadLetterTable())
        .isEmpty();
  }

  @Test
  void aMissingSourceIsNamed() {
    assertThatThrownBy(() -> read(CLICKHOUSE))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--inputTableSpec (INPUT_TABLE_SPEC): is required (or set --query)");
  }

  @Test
  void aMalformedTableSpecIsNamed() {
    assertThatThrownBy(() -> read(CLICKHOUSE, "--inputTableSpec=just_a_table"))
        .hasMessage(
            "--inputTableSpec (INPUT_TABLE_SPEC): expected project:dataset.table or"
                + " project.dataset.table, got 'just_a_table'");
  }

  @Test
  void aMissingClickHouseIsNamed() {
    assertThatThrownBy(() -> read(Map.of("CLICKHOUSE_TABLE", "t"), "--inputTableSpec=p:d.t"))
        .hasMessage(
            "--clickHouseUrl (CLICKHOUSE_URL): is required (or give"
                + " --jdbcUrl=jdbc:clickhouse://host:port/db)");
  }

  @Test
  void aJdbcUrlWithAPasswordIsRefusedWithoutRepeatingIt() {
    assertThatThrownBy(
            () ->
                read(
                    Map.of("CLICKHOUSE_TABLE", "t"),
                    "--inputTableSpec=p:d.t",
                    "--jdbcUrl=jdbc:clickhouse://h:8123/db?password=hunter2"))
        .hasMessage(
            "--jdbcUrl (JDBC_URL): must not hold credentials; use clickHouseUsername and"
                + " clickHousePassword")
        .hasMessageNotContaining("hunter2");
  }

  /**
   * A flag that lost its value (an empty shell variable) takes the next argument, and a flag
   * written with one dash is not a flag: the line that says so goes to stderr, and a password that
   * argument holds must not be in it.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "--clickHouseUsername|--clickHousePassword=hunter2",
        "-clickHousePassword=hunter2",
        "clickHousePassword=hunter2"
      })
  void aMistypedCommandLineIsRefusedWithoutRepeatingThePassword(String mistake) {
    List<String> args = new ArrayList<>(List.of("--inputTableSpec=p:d.t"));
    args.addAll(List.of(mistake.split("\\|")));
    assertThatThrownBy(() -> read(CLICKHOUSE, args.toArray(String[]::new)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void aTaskIndexBeyondTheCountIsNamed() {
    Map<String, String> env = new HashMap<>(CLICKHOUSE);
    env.put("CLOUD_RUN_TASK_INDEX", "4");
    env.put("CLOUD_RUN_TASK_COUNT", "4");
    assertThatThrownBy(() -> read(env, "--inputTableSpec=p:d.t"))
        .hasMessage("CLOUD_RUN_TASK_INDEX: must be below CLOUD_RUN_TASK_COUNT (4), got 4");
  }

  @Test
  void anUnknownFlagIsNamed() {
    assertThatThrownBy(() -> read(CLICKHOUSE, "--inputTableSpec=p:d.t", "--outputTableSpec=x"))
        .hasMessage("unknown flag --outputTableSpec (see --help)");
  }

  @Test
  void aBigQueryEndpointMustBeAnHttpUrl() {
    assertThat(
            read(CLICKHOUSE, "--inputTableSpec=p:d.t", "--bigQueryEndpoint=http://127.0.0.1:9050")
                .bigQueryEndpoint())
        .isEqualTo(Optional.of(URI.create("http://127.0.0.1:9050")));
    assertThatThrownBy(
            () -> read(CLICKHOUSE, "--inputTableSpec=p:d.t", "--bigQueryEndpoint=localhost"))
        .hasMessage(
            "--bigQueryEndpoint (BIGQUERY_ENDPOINT): expected http(s)://host:port, got 'localhost'");
  }

  @Test
  void aBigQueryEndpointElsewhereMustBeHttps() {
    assertThat(
            read(CLICKHOUSE, "--inputTableSpec=p:d.t", "--bigQueryEndpoint=https://bq.example")
                .bigQueryEndpoint())
        .isEqualTo(Optional.of(URI.create("https://bq.example")));
    assertThatThrownBy(
            () ->
                read(CLICKHOUSE, "--inputTableSpec=p:d.t", "--bigQueryEndpoint=http://bq.example"))
        .hasMessage(
            "--bigQueryEndpoint (BIGQUERY_ENDPOINT): must be https:// (http:// only to this"
                + " machine: 127.0.0.0/8, ::1, localhost), got 'http://bq.example'");
  }
}
