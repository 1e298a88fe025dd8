package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.ServiceJava;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code java -jar function/target/function.jar} as users and Cloud Run run it. */
@ClickHouseTest
class MainIT {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final TestDatabase database;
  @TempDir Path directory;
  private final List<Process> launched = new ArrayList<>();

  MainIT(TestDatabase database) {
    this.database = database;
  }

  /** The jar, running with this environment; output goes to a file. */
  private record Service(Process process, Path log, int port) {
    String output() throws Exception {
      return Files.readString(log, StandardCharsets.UTF_8);
    }
  }

  private Service launch(Map<String, String> settings) throws Exception {
    return launch(ServiceJava.ofTests(), settings);
  }

  private Service launch(
      Map<String, String> settings, java.util.function.Consumer<Map<String, String>> environment)
      throws Exception {
    return launch(ServiceJava.ofTests(), settings, environment);
  }

  private Service launch(Path java, Map<String, String> settings) throws Exception {
    return launch(java, settings, env -> {});
  }

  private static Path jar() {
    Path jar = Path.of(System.getProperty("function.jar", "target/function.jar"));
    assertThat(jar).exists();
    return jar;
  }

  private Service launch(
      Path java,
      Map<String, String> settings,
      java.util.function.Consumer<Map<String, String>> environment)
      throws Exception {
    return launch(List.of(java.toString(), "-jar", jar().toString()), settings, environment);
  }

  /**
   * The jar on one CPU, as Cloud Run's default 1 vCPU instance runs it: pinned to one CPU where
   * taskset is there, and told it has one in any case.
   */
  private Service launchOnOneCpu(Path java, Map<String, String> settings) throws Exception {
    List<String> command = new ArrayList<>();
    if (Files.isExecutable(Path.of("/usr/bin/taskset"))) {
      command.addAll(List.of("/usr/bin/taskset", "-c", "0"));
    }
    command.addAll(
        List.of(java.toString(), "-XX:ActiveProcessorCount=1", "-jar", jar().toString()));
    return launch(command, settings, env -> {});
  }

  /**
   * The newest JDK 21 or later this machine has (the image runs 25); the test is skipped without.
   */
  private static Path imagesJdkGeneration() {
    Optional<Path> java = ServiceJava.withVirtualThreads();
    Assumptions.assumeTrue(
        java.isPresent(), "no JDK 21 or later in /usr/lib/jvm or running the tests");
    return java.get();
  }

  /**
   * What the service says it serves on ("threads", "selector" of its "serving" line): requests on
   * virtual threads from JDK 21, and on JDK 25 with one CPU the selector too.
   */
  private static String[] servingOn(Path java, boolean oneCpu) {
    int feature = ServiceJava.featureVersionOf(java);
    boolean single = oneCpu || Runtime.getRuntime().availableProcessors() == 1;
    return new String[] {
      "\"threads\":\"" + (feature >= 21 ? "virtual" : "platform") + "\"",
      "\"selector\":\"" + (feature >= 25 && single ? "virtual" : "platform") + "\""
    };
  }

  /**
   * The Functions Framework's own invoker serving the jar's function, as a Cloud Functions
   * deployment (entry point {@code PushFunction}) runs it: not through the jar's Main.
   */
  private Service launchUnderTheStockInvoker(Map<String, String> settings) throws Exception {
    return launch(
        List.of(
            ServiceJava.ofTests().toString(),
            "-cp",
            jar().toString(),
            "com.google.cloud.functions.invoker.runner.Invoker",
            "--target",
            PushFunction.class.getName()),
        settings,
        env -> {});
  }

  private Service launch(
      List<String> command,
      Map<String, String> settings,
      java.util.function.Consumer<Map<String, String>> environment)
      throws Exception {
    int port = LocalClickHouse.freePort();
    Path output = Files.createTempFile(directory, "service", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(name -> name.startsWith("CLICKHOUSE_") || name.startsWith("BATCH_"));
    env.put("CLICKHOUSE_URL", database.server().url());
    env.put("CLICKHOUSE_USER", database.server().user());
    env.put("CLICKHOUSE_PASSWORD", database.server().password());
    env.put("CLICKHOUSE_DATABASE", database.name());
    env.put("PORT", Integer.toString(port));
    env.putAll(settings);
    environment.accept(env);
    Process process = builder.start();
    launched.add(process);
    return new Service(process, output, port);
  }

  private static void awaitReady(Service service) throws Exception {
    for (int i = 0; i < 300; i++) {
      try {
        HttpResponse<String> health = get(service, "/healthz");
        if (health.statusCode() == 200) {
          return;
        }
      } catch (java.io.IOException notYet) {
        // not listening yet
      }
      assertThat(service.process().isAlive()).as("service exited: %s", service.output()).isTrue();
      Thread.sleep(100);
    }
    throw new AssertionError("not ready: " + service.output());
  }

  private static HttpResponse<String> get(Service service, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static CompletableFuture<Integer> push(Service service, String id, String data) {
    String body =
        "{\"message\":{\"data\":\""
            + Base64.getEncoder().encodeToString(data.getBytes(StandardCharsets.UTF_8))
            + "\",\"messageId\":\""
            + id
            + "\"}}";
    return HTTP.sendAsync(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + "/"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .thenApply(HttpResponse::statusCode);
  }

  @AfterEach
  void stopWhatWasLaunched() throws InterruptedException {
    for (Process process : launched) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void onJdk21AndLaterRequestsWaitOnVirtualThreadsAndStillShareInserts() throws Exception {
    Path java = imagesJdkGeneration();
    database.execute("CREATE TABLE virtual (n UInt32) ENGINE = MergeTree ORDER BY n");
    // More waiting requests than an OS-thread pool's 1024 threads and Jetty's default cap of 200
    // virtual threads: uncapped, they all wait for their batch at once.
    int requests = 1500;
    Service service =
        launchOnOneCpu(
            java,
            Map.of(
                "CLICKHOUSE_TABLE", "virtual",
                "BATCH_LINGER_MS", "20000",
                "BATCH_MAX_WAIT_MS", "20000",
                "BATCH_MAX_ROWS", Integer.toString(requests)));
    awaitReady(service);
    List<CompletableFuture<Integer>> answers = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      answers.add(push(service, "v-" + i, "{\"n\":" + i + "}"));
    }
    for (CompletableFuture<Integer> answer : answers) {
      assertThat(answer.get(60, TimeUnit.SECONDS)).isEqualTo(204);
    }
    assertThat(database.query("SELECT count(), uniqExact(n), min(n), max(n) FROM virtual"))
        .isEqualTo(requests + "\t" + requests + "\t0\t" + (requests - 1));
    assertThat(get(service, "/metrics").body()).contains("pubsub_clickhouse_inserts_total 1.0\n");
    assertThat(service.output()).contains(servingOn(java, true));
    service.process().destroy();
    assertThat(service.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
    // On the image's JDK too, nothing but JSON lines: LZ4's native code loads without the JVM's
    // warning (Enable-Native-Access in the jar's manifest).
    assertEveryLineIsJson(service.output());
  }

  /** Every line one JSON object Cloud Logging reads; returns them. */
  private static List<JsonNode> assertEveryLineIsJson(String output) throws Exception {
    List<JsonNode> lines = new ArrayList<>();
    for (String line : output.lines().toList()) {
      assertThat(line).startsWith("{");
      JsonNode json = new ObjectMapper().readTree(line);
      assertThat(json.has("severity") && json.has("message") && json.has("time")).as(line).isTrue();
      lines.add(json);
    }
    return lines;
  }

  @Test
  void startedBeforeClickHouseAndItsTablesItServesUnreadyThenWritesWithoutARestart()
      throws Exception {
    LocalClickHouse server = LocalClickHouse.unstarted(directory.resolve("clickhouse"));
    try {
      Service service =
          launch(
              Map.of(
                  "CLICKHOUSE_URL", server.url(),
                  "CLICKHOUSE_USER", "default",
                  "CLICKHOUSE_PASSWORD", "",
                  "CLICKHOUSE_DATABASE", "default",
                  "CLICKHOUSE_TABLE", "late",
                  "CLICKHOUSE_DEAD_LETTER_TABLE", "late_dead_letters"));
      String noClickHouse = "ClickHouse at " + server.url() + " does not answer: ";
      HttpResponse<String> health = awaitHealth(service, body -> body.startsWith(noClickHouse));
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(get(service, "/livez").statusCode()).isEqualTo(200);
      assertThat(push(service, "early", "{\"n\":1}").get()).isEqualTo(503);

      server.start();
      String noTable = "table default.late does not exist or is not visible to this user";
      assertThat(awaitHealth(service, noTable::equals).statusCode()).isEqualTo(503);
      assertThat(push(service, "early", "{\"n\":1}").get()).isEqualTo(503);

      sql(
          server,
          "CREATE TABLE late (n UInt32, _pubsub_message_id String) ENGINE = MergeTree ORDER BY n");
      String noDeadLetterTable =
          "dead-letter table default.late_dead_letters does not exist (create it, or set"
              + " CREATE_DEAD_LETTER_TABLE=true)";
      assertThat(awaitHealth(service, noDeadLetterTable::equals).statusCode()).isEqualTo(503);

      sql(
          server,
          "CREATE TABLE late_dead_letters (raw_message String, error_message String,"
              + " stack_trace String, failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");
      assertThat(awaitHealth(service, "ok"::equals).statusCode()).isEqualTo(200);
      assertThat(push(service, "early", "{\"n\":7}").get()).isEqualTo(204);
      assertThat(push(service, "unfit", "{\"n\":-1}").get()).isEqualTo(204);

      assertThat(sql(server, "SELECT _pubsub_message_id, n FROM late FORMAT TSV"))
          .isEqualTo("early\t7\n");
      assertThat(sql(server, "SELECT error_message FROM late_dead_letters FORMAT TSVRaw"))
          .startsWith("column 'n' (UInt32) rejects -1: out of range");
      assertThat(service.process().isAlive()).isTrue();
      List<String> reasons =
          service
              .output()
              .lines()
              .filter(line -> line.contains("\"message\":\"not ready;"))
              .map(line -> line.replaceAll(".*\"reason\":\"([^\"]*)\".*", "$1"))
              .toList();
      // Each reason once, when it changed; in the order the missing parts appeared.
      for (int i = 1; i < reasons.size(); i++) {
        assertThat(reasons.get(i)).isNotEqualTo(reasons.get(i - 1));
      }
      assertThat(reasons.get(0)).startsWith(noClickHouse);
      assertThat(reasons).contains(noTable, noDeadLetterTable);
      assertThat(reasons.get(reasons.size() - 1)).isEqualTo(noDeadLetterTable);
      assertThat(service.output().lines().filter(l -> l.contains("\"push service ready\"")))
          .hasSize(1);
    } finally {
      server.stop();
    }
  }

  @Test
  void withoutATokenCheckItWarnsOnceAtStartUnlessPushAuthNoneSaysSo() throws Exception {
    database.execute("CREATE TABLE open_door (n UInt8) ENGINE = MergeTree ORDER BY n");
    Service warned = launch(Map.of("CLICKHOUSE_TABLE", "open_door"));
    Service intended = launch(Map.of("CLICKHOUSE_TABLE", "open_door", "PUSH_AUTH", "none"));
    awaitReady(warned);
    awaitReady(intended);
    List<JsonNode> warnings =
        assertEveryLineIsJson(warned.output()).stream()
            .filter(line -> line.path("message").asText().contains("PUSH_AUDIENCE"))
            .toList();
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0).path("severity").asText()).isEqualTo("WARNING");
    assertThat(warnings.get(0).path("message").asText())
        .contains("only Cloud Run's IAM (roles/run.invoker) guards this service");
    assertThat(intended.output()).doesNotContain("PUSH_AUDIENCE").contains("\"serving\"");
  }

  @Test
  void aMisspeltVariableIsNamedAtStartWithTheParameterItResembles() throws Exception {
    database.execute("CREATE TABLE misspelt (n UInt8) ENGINE = MergeTree ORDER BY n");
    Service service =
        launch(
            Map.of(
                "CLICKHOUSE_TABLE", "misspelt",
                "PUSH_AUTH", "none",
                "BATCH_MAX_WAIT_MSS", "5",
                "PUBSUB_EMULATOR_HOST", "127.0.0.1:1"));
    awaitReady(service);
    List<String> warnings =
        assertEveryLineIsJson(service.output()).stream()
            .filter(line -> line.path("severity").asText().equals("WARNING"))
            .map(line -> line.path("message").asText())
            .toList();
    assertThat(warnings)
        .containsExactly("BATCH_MAX_WAIT_MSS is not a parameter; did you mean BATCH_MAX_WAIT_MS?");
  }

  @Test
  void aWrongPasswordKeepsItUnreadyNamingTheRefusalNotThePassword() throws Exception {
    Assumptions.assumeTrue(
        database.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    database.execute("CREATE TABLE refused (n UInt8) ENGINE = MergeTree ORDER BY n");
    String wrong = "wrong-" + LocalClickHouse.PIPELINE_PASSWORD;
    Service service =
        launch(
            Map.of(
                "CLICKHOUSE_TABLE",
                "refused",
                "CLICKHOUSE_USER",
                LocalClickHouse.PIPELINE_USER,
                "CLICKHOUSE_PASSWORD",
                wrong));
    HttpResponse<String> health =
        awaitHealth(service, body -> body.startsWith("cannot use ClickHouse at "));
    assertThat(health.statusCode()).isEqualTo(503);
    assertThat(health.body()).contains("Authentication failed").doesNotContain(wrong);
    assertThat(push(service, "refused", "{\"n\":1}").get()).isEqualTo(503);
    assertThat(service.output())
        .contains("Authentication failed")
        .doesNotContain(LocalClickHouse.PIPELINE_PASSWORD);
    assertThat(database.count("refused")).isZero();
  }

  /** Polls /healthz until its body passes {@code expected}; fails naming the last body. */
  private static HttpResponse<String> awaitHealth(Service service, Predicate<String> expected)
      throws Exception {
    String last = "(not listening)";
    for (int i = 0; i < 1200; i++) {
      try {
        HttpResponse<String> health = get(service, "/healthz");
        last = health.body().strip();
        if (expected.test(last)) {
          return health;
        }
      } catch (java.io.IOException notYet) {
        // not listening yet
      }
      assertThat(service.process().isAlive()).as("service exited: %s", service.output()).isTrue();
      Thread.sleep(100);
    }
    throw new AssertionError("/healthz still says: " + last + "\n" + service.output());
  }

  /** Runs one statement over the server's HTTP interface; returns its output. */
  private static String sql(LocalClickHouse server, String statement) throws Exception {
    HttpResponse<String> answer =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(server.url() + "/"))
                .POST(HttpRequest.BodyPublishers.ofString(statement))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return answer.body();
  }

  @Test
  void helpListsTheEnvironmentVariablesItReadsAndNoFlag() throws Exception {
    Process help =
        new ProcessBuilder(ServiceJava.ofTests().toString(), "-jar", jar().toString(), "--help")
            .redirectErrorStream(true)
            .start();
    String text = new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(help.waitFor()).isZero();
    assertThat(text).isEqualTo(Main.help());
    for (var parameter : PushParameters.ALL) {
      assertThat(text).contains("\n  " + parameter.env() + "\n");
    }
    // --check is the one argument: every setting is a variable.
    assertThat(text.lines().filter(line -> line.strip().startsWith("--")))
        .singleElement()
        .asString()
        .startsWith("  --check  ");
    assertThat(text).doesNotContain("--clickHouse");
  }

  @Test
  void anArgumentStopsStartNamingNoValue() throws Exception {
    Process refused =
        new ProcessBuilder(
                ServiceJava.ofTests().toString(),
                "-jar",
                jar().toString(),
                "--clickHousePassword=" + LocalClickHouse.PIPELINE_PASSWORD)
            .redirectErrorStream(true)
            .start();
    String text = new String(refused.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(refused.waitFor()).isEqualTo(2);
    assertThat(text)
        .isEqualTo(
            "pubsub-clickhouse: the push service reads environment variables, not arguments;"
                + " got --clickHousePassword (only --check is an argument; see --help)\n");
  }

  @Test
  void aMetricsExportToGoogleWithoutCredentialsStopsStartWithOneLine() throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put("CLICKHOUSE_TABLE", "t");
    settings.put(
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "https://telemetry.googleapis.com/v1/metrics");
    // No credentials anywhere, and no probe of the metadata server (it is not on loopback).
    settings.put("NO_GCE_CHECK", "true");
    settings.put("HOME", directory.toString());
    Service service = launch(settings, env -> env.remove("GOOGLE_APPLICATION_CREDENTIALS"));
    assertThat(service.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(service.process().exitValue()).isEqualTo(2);
    assertThat(service.output().lines().toList())
        .singleElement()
        .asString()
        .startsWith(
            "pubsub-clickhouse: metrics export to telemetry.googleapis.com needs Google"
                + " credentials: ");
  }

  @Test
  void anInvalidSettingStopsStartNamingTheVariable() throws Exception {
    Service service = launch(Map.of("CLICKHOUSE_TABLE", "t", "BATCH_MAX_ROWS", "many"));
    assertThat(service.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(service.process().exitValue()).isEqualTo(2);
    assertThat(service.output().strip())
        .isEqualTo("pubsub-clickhouse: BATCH_MAX_ROWS: expected a whole number, got 'many'");
  }

  @Test
  void aPortInUseStopsStartWithOneLineNamingIt() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
      int port = taken.getLocalPort();
      Service service =
          launch(Map.of("CLICKHOUSE_TABLE", "t", "PORT", Integer.toString(port)), env -> {});
      assertThat(service.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(service.process().exitValue()).isEqualTo(2);
      // Before, a Java stack trace (not JSON, so Cloud Logging splits it line by line) and exit 1.
      assertThat(service.output().lines().filter(line -> !line.startsWith("{")).toList())
          .containsExactly(
              "pubsub-clickhouse: PORT: cannot listen on port "
                  + port
                  + ": Address already in use");
    }
  }

  @Test
  void underTheStockInvokerSigtermAlsoWritesTheOpenBatchAndAnswersEveryRequest() throws Exception {
    database.execute("CREATE TABLE drained_invoker (n UInt32) ENGINE = MergeTree ORDER BY n");
    Service service = launchUnderTheStockInvoker(holdingTheOpenBatch("drained_invoker"));
    awaitReady(service);
    List<CompletableFuture<Integer>> answers = twentyWaitingInTheOpenBatch(service);
    service.process().destroy(); // SIGTERM
    assertThat(service.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
    for (CompletableFuture<Integer> answer : answers) {
      assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(204);
    }
    assertThat(database.count("drained_invoker")).isEqualTo(20);
    assertThat(service.output()).contains("\"message\":\"push service stopped\"");
  }

  /** A long linger holds every message in the open batch until the shutdown flushes it. */
  private static Map<String, String> holdingTheOpenBatch(String table) {
    return Map.of(
        "CLICKHOUSE_TABLE", table, "BATCH_LINGER_MS", "30000", "BATCH_MAX_WAIT_MS", "60000");
  }

  /** Pushes {"n": 0} to {"n": 19} and returns once all 20 wait in the open batch. */
  private static List<CompletableFuture<Integer>> twentyWaitingInTheOpenBatch(Service service)
      throws Exception {
    List<CompletableFuture<Integer>> answers = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      answers.add(push(service, "d-" + i, "{\"n\":" + i + "}"));
    }
    while (!get(service, "/metrics").body().contains("pubsub_clickhouse_waiting_requests 20.0\n")) {
      Thread.sleep(20);
    }
    return answers;
  }

  @Test
  void sigtermWritesTheOpenBatchAnswersEveryRequestAndExitsInTime() throws Exception {
    Path java = ServiceJava.ofTests();
    database.execute("CREATE TABLE drained (n UInt32) ENGINE = MergeTree ORDER BY n");
    Service service = launch(java, holdingTheOpenBatch("drained"));
    sigtermDrainsTheOpenBatch(service, "drained");
    assertThat(service.output()).contains(servingOn(java, false));
  }

  @Test
  void onTheImagesJdkAndOneCpuSigtermAlsoWritesTheOpenBatchAndAnswersEveryRequest()
      throws Exception {
    Path java = imagesJdkGeneration();
    database.execute("CREATE TABLE drained_one_cpu (n UInt32) ENGINE = MergeTree ORDER BY n");
    Service service = launchOnOneCpu(java, holdingTheOpenBatch("drained_one_cpu"));
    sigtermDrainsTheOpenBatch(service, "drained_one_cpu");
    assertThat(service.output()).contains(servingOn(java, true));
  }

  /**
   * Holds {"n": 0} to {"n": 19} in the open batch, sends SIGTERM, and checks that the process wrote
   * them (every value), answered each 204 and exited within 10 s, logging only JSON.
   */
  private void sigtermDrainsTheOpenBatch(Service service, String table) throws Exception {
    awaitReady(service);
    List<CompletableFuture<Integer>> answers = twentyWaitingInTheOpenBatch(service);
    long start = System.nanoTime();
    service.process().destroy(); // SIGTERM
    assertThat(service.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    for (CompletableFuture<Integer> answer : answers) {
      assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(204);
    }
    assertThat(database.query("SELECT groupArray(n) FROM (SELECT n FROM " + table + " ORDER BY n)"))
        .isEqualTo("[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]");
    // Every line, the libraries' too (Jetty's start), is one JSON object Cloud Logging reads.
    List<JsonNode> lines = assertEveryLineIsJson(service.output());
    assertThat(lines)
        .anyMatch(json -> json.path("logger").asText().startsWith("org.eclipse.jetty."));
    assertThat(service.output())
        .doesNotContain("SLF4J")
        .contains("\"message\":\"push service stopped\"")
        .contains("\"unanswered\":0");
  }

  @Test
  void thePasswordAppearsNowhere() throws Exception {
    Assumptions.assumeTrue(
        database.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    database.execute("CREATE TABLE secret_logs (n UInt8) ENGINE = MergeTree ORDER BY n");
    database.execute(
        "CREATE TABLE secret_errors (raw_message String, error_message String, stack_trace String, failed_at DateTime)"
            + " ENGINE = MergeTree ORDER BY failed_at");
    Map<String, String> settings = new HashMap<>();
    settings.put("CLICKHOUSE_TABLE", "secret_logs");
    settings.put("CLICKHOUSE_DEAD_LETTER_TABLE", "secret_errors");
    settings.put("CLICKHOUSE_USER", LocalClickHouse.PIPELINE_USER);
    settings.put("CLICKHOUSE_PASSWORD", LocalClickHouse.PIPELINE_PASSWORD);
    settings.put("SUMMARY_INTERVAL_SECONDS", "1");
    Service service = launch(settings);
    awaitReady(service);
    assertThat(push(service, "ok", "{\"n\":1}").get()).isEqualTo(204);
    assertThat(push(service, "bad", "{\"n\":1000}").get()).isEqualTo(204);
    String metrics = get(service, "/metrics").body();
    Thread.sleep(1500);
    service.process().destroy();
    service.process().waitFor(10, TimeUnit.SECONDS);
    assertThat(service.output())
        .contains("\"message\":\"summary\"")
        .doesNotContain(LocalClickHouse.PIPELINE_PASSWORD);
    assertThat(metrics)
        .contains("pubsub_clickhouse_dead_lettered_total 1.0\n")
        .doesNotContain(LocalClickHouse.PIPELINE_PASSWORD);
    assertThat(database.query("SELECT error_message, stack_trace FROM secret_errors"))
        .doesNotContain(LocalClickHouse.PIPELINE_PASSWORD);
  }
}
