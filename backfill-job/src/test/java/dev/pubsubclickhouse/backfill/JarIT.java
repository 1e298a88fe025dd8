package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shaded jar, run as the container runs it: {@code java -jar backfill-job.jar}. */
class JarIT {
  private record Result(int exitCode, String output) {}

  private static Result java(List<String> args) throws Exception {
    String jar = System.getProperty("backfill.jar", "target/backfill-job.jar");
    List<String> command = new java.util.ArrayList<>(List.of("java", "-jar", jar));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder
        .environment()
        .keySet()
        .removeIf(k -> k.startsWith("CLICKHOUSE_") || k.startsWith("INPUT_"));
    File log = File.createTempFile("backfill-jar", ".log");
    builder.redirectOutput(log);
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String output = java.nio.file.Files.readString(log.toPath(), StandardCharsets.UTF_8);
    log.delete();
    return new Result(process.exitValue(), output);
  }

  /**
   * The BigQuery stand-in serves the tests, the benchmarks and scripts/bigquery-local; the job that
   * runs in the cloud carries none of it, nor anything else of test-support.
   */
  @Test
  void theJarHoldsNoTestSupport() throws Exception {
    String jar = System.getProperty("backfill.jar", "target/backfill-job.jar");
    try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar)) {
      List<String> entries = file.stream().map(java.util.jar.JarEntry::getName).toList();
      assertThat(entries).contains("dev/pubsubclickhouse/backfill/Main.class");
      assertThat(entries)
          .noneMatch(name -> name.startsWith("dev/pubsubclickhouse/testing/"))
          .noneMatch(name -> name.contains("LocalBigQuery") || name.contains("AvroPayloads"));
    }
  }

  @Test
  void theJarPrintsHelp() throws Exception {
    Result result = java(List.of("--help"));
    assertThat(result.exitCode()).isZero();
    assertThat(result.output())
        .startsWith("Backfill a BigQuery table or query into a ClickHouse table.")
        .contains("--inputTableSpec=INPUT_TABLE_SPEC")
        .doesNotContain("SLF4J");
  }

  @Test
  void theJarStopsOnAMissingParameterWithExitCode2AndOneLine() throws Exception {
    Result result =
        java(List.of("--clickHouseTable=logs", "--jdbcUrl=jdbc:clickhouse://h:8123/db"));
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.output())
        .isEqualTo("backfill: --inputTableSpec (INPUT_TABLE_SPEC): is required (or set --query)\n");
  }

  /**
   * A run that starts the clients logs only JSON lines: no SLF4J "no providers" warning, the
   * libraries' own records in the job's format.
   */
  @Test
  void everyLineOfARunIsAJsonLogLine() throws Exception {
    Result result =
        java(
            List.of(
                "--inputTableSpec=p:d.t",
                "--clickHouseUrl=http://127.0.0.1:1",
                "--clickHouseTable=t",
                "--bigQueryEndpoint=http://127.0.0.1:1",
                "--outputDeadletterTable=none"));
    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.output()).doesNotContain("SLF4J").contains("backfill failed before reading");
    for (String line : result.output().split("\n")) {
      assertThat(line).startsWith("{\"severity\":");
    }
  }
}
