package dev.pubsubclickhouse.reliability;

import dev.pubsubclickhouse.driver.PushDriver.Summary;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar push-driver/target/push-driver.jar}: Pub/Sub push delivery of an NDJSON file,
 * retrying nacks with backoff and dead-lettering to a file after the last attempt.
 */
final class DriverRun {
  private final Process process;
  private final Path output;
  final Path deadLetterFile;

  private DriverRun(Process process, Path output, Path deadLetterFile) {
    this.process = process;
    this.output = output;
    this.deadLetterFile = deadLetterFile;
  }

  /**
   * Delivery as Pub/Sub does it: -Dreliability.concurrency in flight (16), 100 ms to 2 s backoff,
   * 30 attempts, a 10 s ack deadline.
   */
  static List<String> pubSubLike() {
    return List.of(
        "--concurrency=" + Results.concurrency(),
        "--min-backoff-ms=100",
        "--max-backoff-ms=2000",
        "--max-attempts=30",
        "--timeout-ms=10000");
  }

  static Path jar() {
    Path jar =
        Path.of(System.getProperty("push-driver.jar", "../push-driver/target/push-driver.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no " + jar + ": run mvn package -pl push-driver first");
    }
    return jar;
  }

  /**
   * Starts delivering {@code input} to {@code endpoint}.
   *
   * @param options further driver options, e.g. {@code --timeout-ms=3000}
   */
  static DriverRun start(URI endpoint, Path input, Path directory, List<String> options)
      throws IOException {
    Path deadLetters = directory.resolve("dead-letter.ndjson");
    Path output = directory.resolve("driver.log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-jar");
    command.add(jar().toString());
    command.add("--endpoint=" + endpoint);
    command.add("--input=" + input);
    command.add("--dead-letter-file=" + deadLetters);
    command.add("--quiet");
    command.addAll(options);
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    return new DriverRun(process, output, deadLetters);
  }

  /** Waits for the driver to finish every message (acked or dead-lettered). */
  Summary await(long timeoutSeconds) throws Exception {
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the push driver did not finish in " + timeoutSeconds + " s");
    }
    String text = Files.readString(output, StandardCharsets.UTF_8);
    return Summary.find(text)
        .orElseThrow(() -> new AssertionError("no summary from the push driver: " + text));
  }

  boolean running() {
    return process.isAlive();
  }

  /** Ends the driver if it still runs (after a failed test). */
  void stop() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
