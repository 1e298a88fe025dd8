package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.function.ingest.BatchPolicy;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PushConfigTest {
  private static PushConfig read(Map<String, String> extra) {
    return PushConfig.read(environment(extra));
  }

  private static Map<String, String> environment(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(extra);
    env.putIfAbsent("CLICKHOUSE_URL", "http://127.0.0.1:8123");
    env.putIfAbsent("CLICKHOUSE_TABLE", "t");
    return env;
  }

  @Test
  void anAudienceWithoutAServiceAccountStopsStartBecauseAnyoneCanMintSuchAToken() {
    assertThatThrownBy(
            () -> PushConfig.read(environment(Map.of("PUSH_AUDIENCE", "https://svc.example.run"))))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("PUSH_SERVICE_ACCOUNT: is required with PUSH_AUDIENCE")
        .hasMessageContaining("PUSH_ALLOW_ANY_SERVICE_ACCOUNT=true");
  }

  @Test
  void anyAccountIsAdmittedOnlyWhenSaidExplicitly() {
    PushConfig config =
        PushConfig.read(
            environment(
                Map.of(
                    "PUSH_AUDIENCE", "https://svc.example.run",
                    "PUSH_ALLOW_ANY_SERVICE_ACCOUNT", "true")));
    assertThat(config.authenticator()).isPresent();
  }

  @Test
  void anAudienceWithItsServiceAccountStarts() {
    PushConfig config =
        PushConfig.read(
            environment(
                Map.of(
                    "PUSH_AUDIENCE", "https://svc.example.run",
                    "PUSH_SERVICE_ACCOUNT", "pusher@p.iam.gserviceaccount.com")));
    assertThat(config.authenticator()).isPresent();
  }

  @Test
  void withoutATokenCheckStartUpWarnsNamingPushAudienceAndCloudRunsIam() {
    assertThat(read(Map.of()).unauthenticatedWarning())
        .hasValueSatisfying(
            warning ->
                assertThat(warning)
                    .startsWith("push requests are not authenticated: PUSH_AUDIENCE is not set")
                    .contains("only Cloud Run's IAM (roles/run.invoker) guards this service")
                    .contains("PUSH_AUTH=none"));
  }

  @Test
  void pushAuthNoneSaysNoTokenCheckIsIntended() {
    PushConfig config = read(Map.of("PUSH_AUTH", "none"));
    assertThat(config.authenticator()).isEmpty();
    assertThat(config.unauthenticatedWarning()).isEmpty();
  }

  @Test
  void aTokenCheckNeedsNoWarning() {
    PushConfig config =
        read(
            Map.of(
                "PUSH_AUDIENCE", "https://svc.example.run",
                "PUSH_SERVICE_ACCOUNT", "pusher@p.iam.gserviceaccount.com"));
    assertThat(config.unauthenticatedWarning()).isEmpty();
  }

  @Test
  void pushAuthNoneWithAnAudienceIsAContradiction() {
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "PUSH_AUTH", "none",
                        "PUSH_AUDIENCE", "https://svc.example.run",
                        "PUSH_SERVICE_ACCOUNT", "pusher@p.iam.gserviceaccount.com")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "PUSH_AUTH: none contradicts PUSH_AUDIENCE, which turns the token check on; set one");
  }

  @Test
  void pushAuthTakesOnlyNone() {
    assertThatThrownBy(() -> read(Map.of("PUSH_AUTH", "iam")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("PUSH_AUTH: expected none (or unset), got 'iam'");
  }

  @Test
  void aMalformedColumnMappingStopsStartNamingThePair() {
    assertThat(read(Map.of("COLUMN_MAPPING", "user_id=user.id")).tables().columnSources().paths())
        .containsOnlyKeys("user_id");
    assertThatThrownBy(() -> read(Map.of("COLUMN_MAPPING", "raw=$data,sku=items[0.sku")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("COLUMN_MAPPING: 'sku=items[0.sku': '[' at 5 has no ']'");
  }

  @Test
  void theMetricsPortIsAPortOfItsOwn() {
    assertThat(read(Map.of()).metricsPort()).isEmpty();
    assertThat(read(Map.of("METRICS_PORT", "9464")).metricsPort()).hasValue(9464);
    assertThatThrownBy(() -> read(Map.of("PORT", "9464", "METRICS_PORT", "9464")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("METRICS_PORT: must differ from PORT (9464)");
  }

  @Test
  void theTokenKeysComeOverHttpsOrFromThisMachine() {
    Map<String, String> audience =
        Map.of(
            "PUSH_AUDIENCE", "https://svc.example.run",
            "PUSH_SERVICE_ACCOUNT", "pusher@p.iam.gserviceaccount.com");
    Map<String, String> local = new HashMap<>(audience);
    local.put("PUSH_TOKEN_CERTS_URL", "http://127.0.0.1:9000/certs");
    assertThat(read(local).authenticator()).isPresent();
    Map<String, String> elsewhere = new HashMap<>(audience);
    elsewhere.put("PUSH_TOKEN_CERTS_URL", "http://www.googleapis.com/oauth2/v3/certs");
    assertThatThrownBy(() -> read(elsewhere))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "PUSH_TOKEN_CERTS_URL: must be https:// (http:// only to this machine: 127.0.0.0/8,"
                + " ::1, localhost), got 'http://www.googleapis.com/oauth2/v3/certs'");
  }

  @Test
  void metricsArePushedOverHttpsOrToThisMachine() {
    assertThat(
            read(Map.of("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://localhost:4318/v1/metrics"))
                .metricsExport())
        .isPresent();
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
                        "http://telemetry.googleapis.com/v1/metrics")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: must be https:// (http:// only to this machine:"
                + " 127.0.0.0/8, ::1, localhost), got 'http://telemetry.googleapis.com/v1/metrics'");
  }

  @Test
  void theDeadLetterTableIsNoTableAMessageMayName() {
    Map<String, String> env =
        Map.of(
            "CLICKHOUSE_DEAD_LETTER_TABLE", "dlt",
            "CLICKHOUSE_TABLE_ATTRIBUTE", "table",
            "CLICKHOUSE_TABLES", "clicks,default.dlt");
    assertThatThrownBy(() -> read(env))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "CLICKHOUSE_TABLES: lists the dead-letter table default.dlt"
                + " (CLICKHOUSE_DEAD_LETTER_TABLE): a message naming it would write rows that replay"
                + " takes for dead letters");
    assertThatThrownBy(() -> read(Map.of("CLICKHOUSE_DEAD_LETTER_TABLE", "t")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("CLICKHOUSE_DEAD_LETTER_TABLE: names the target table default.t");
  }

  @Test
  void errorsNameTheVariablesTheServiceReadsNotTheBackfillsFlags() {
    assertThatThrownBy(() -> PushConfig.read(environment(Map.of("MAX_RETRIES", "lots"))))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("MAX_RETRIES: expected a whole number, got 'lots'");
    assertThatThrownBy(() -> PushConfig.read(environment(Map.of("CLICKHOUSE_TABLE", "a.b.c"))))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("CLICKHOUSE_TABLE: ");
  }

  @Test
  void aBatchLargerThanOneInsertBlockIsRefused() {
    assertThatThrownBy(
            () ->
                PushConfig.read(
                    environment(
                        Map.of("BATCH_MAX_ROWS", "20000", "MAX_INSERT_BLOCK_SIZE", "10000"))))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "BATCH_MAX_ROWS: must not exceed MAX_INSERT_BLOCK_SIZE (10000), so that one batch is"
                + " one block");
  }

  @Test
  void theBatchPolicyBuilderStartsFromTheDefaultsTheServiceReads() {
    assertThat(BatchPolicy.builder().build()).isEqualTo(read(Map.of()).batch());
  }

  @Test
  void aLingerLongerThanTheMaximumWaitIsRefusedRatherThanSilentlyShortened() {
    // The batcher sends a batch once its oldest message is overdue (BATCH_MAX_WAIT_MS), linger or
    // not: BATCH_LINGER_MS=5000 with the default 1000 lingered 1 s.
    assertThatThrownBy(() -> read(Map.of("BATCH_LINGER_MS", "5000")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "BATCH_LINGER_MS: must not exceed BATCH_MAX_WAIT_MS (1000), which sends a batch"
                + " whatever its linger; got 5000");
    assertThat(
            read(Map.of("BATCH_LINGER_MS", "5000", "BATCH_MAX_WAIT_MS", "5000")).batch().linger())
        .hasMillis(5000);
  }

  @Test
  void aLingerThatOutlastsTheAnswerTimeoutIsRefused() {
    // Every message would be answered 503 before the batch that holds it is sent, and sent to no
    // table: with 3000/3000/1000, pushes one after another got 503, 503, 204 and 1 row of 3.
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "BATCH_LINGER_MS", "3000",
                        "BATCH_MAX_WAIT_MS", "3000",
                        "ANSWER_TIMEOUT_MS", "1000")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "BATCH_LINGER_MS: must be below ANSWER_TIMEOUT_MS (1000), or messages are answered 503"
                + " while their batch lingers; got 3000");
  }

  @ParameterizedTest
  @ValueSource(strings = {"not a host:::", "http://127.0.0.1:8085", "127.0.0.1", "host:0"})
  void aPubSubEndpointThatIsNotHostAndPortStopsStartNamingIt(String endpoint) {
    // Before: with DEAD_LETTER_TOPIC the first one stopped start blaming ClickHouse ("cannot use
    // ClickHouse at ...: Illegal character in authority"); without it the schema service failed
    // only when a message with a schema came.
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "PUBSUB_ENDPOINT",
                        endpoint,
                        "DEAD_LETTER_TOPIC",
                        "projects/p/topics/dead")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "PUBSUB_ENDPOINT: expected host:port (plaintext, e.g. 127.0.0.1:8085), got '"
                + endpoint
                + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1:8085", "localhost:8085", "[::1]:8085", "pubsub-emu:1"})
  void aPubSubEndpointOfHostAndPortIsTaken(String endpoint) {
    assertThat(read(Map.of("PUBSUB_ENDPOINT", endpoint)).pubsubEndpoint()).contains(endpoint);
  }

  @Test
  void distributedInsertsAreSynchronousByDefault() {
    assertThat(read(Map.of()).clickHouse().insertOptions().distributedSync()).isTrue();
    assertThat(
            read(Map.of("INSERT_DISTRIBUTED_SYNC", "true"))
                .clickHouse()
                .insertOptions()
                .distributedSync())
        .isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"false", "0", "no"})
  void asynchronousDistributedInsertsAreRefusedWithOneLine(String value) {
    assertThatThrownBy(() -> read(Map.of("INSERT_DISTRIBUTED_SYNC", value)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "INSERT_DISTRIBUTED_SYNC: false is refused: a Distributed"
                + " table would answer once the rows are queued on the server that took the"
                + " INSERT, before they are on their shards, and the messages would be"
                + " acknowledged; leave it true")
        .hasMessageNotContaining("\n");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "distributed_foreground_insert=0",
        "insert_distributed_sync=0",
        "Insert_Distributed_Sync=1",
        "async_insert=1",
        "wait_for_async_insert=0",
        "insert_deduplication_token=fixed",
        "async_insert_deduplicate=0",
        "insert_distributed_one_random_shard=1",
        "deduplicate_blocks_in_dependent_materialized_views=0"
      })
  void settingsThatDecideWhenRowsCountAsWrittenAreRefusedInClickHouseSettings(String setting) {
    String name = setting.substring(0, setting.indexOf('='));
    assertThatThrownBy(() -> read(Map.of("CLICKHOUSE_SETTINGS", "max_threads=2," + setting)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "CLICKHOUSE_SETTINGS: the setting " + name + " cannot be passed through: ")
        .hasMessageNotContaining("\n");
  }

  /**
   * ClickHouse's HTTP interface reads these from the URL beside the settings: {@code query} is put
   * before the INSERT the service sends, {@code user} and {@code password} change who runs it,
   * {@code param_*} fill query parameters, {@code wait_end_of_query} changes when the answer
   * starts.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "query=DROP TABLE t;",
        "user=default",
        "password=x",
        "database=other",
        "param_id=1",
        "Param_ID=1",
        "query_id=fixed",
        "session_id=s",
        "session_timeout=60",
        "session_check=1",
        "default_format=JSON",
        "quota_key=k",
        "role=admin",
        "compress=1",
        "decompress=1",
        "buffer_size=1",
        "wait_end_of_query=0",
        "stacktrace=1",
        "client_protocol_version=1",
        "close_session=1"
      })
  void httpRequestParametersAreRefusedInClickHouseSettingsNamingTheName(String setting) {
    String name = setting.substring(0, setting.indexOf('='));
    assertThatThrownBy(() -> read(Map.of("CLICKHOUSE_SETTINGS", "max_threads=2," + setting)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "CLICKHOUSE_SETTINGS: "
                + name
                + " is a parameter of ClickHouse's HTTP interface, not a setting: the service"
                + " sets the query, the credentials and the database itself")
        .hasMessageNotContaining("DROP");
  }

  @Test
  void otherSettingsPassThrough() {
    assertThat(
            read(Map.of("CLICKHOUSE_SETTINGS", "max_threads=2,insert_quorum_timeout=60000"))
                .clickHouse()
                .insertOptions()
                .extraSettings())
        .containsEntry("max_threads", "2")
        .containsEntry("insert_quorum_timeout", "60000");
  }
}
