package dev.pubsubclickhouse.reliability;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code java -jar push-driver/target/push-driver.jar}: Pub/Sub push delivery of an NDJSON file,
 * retrying nacks with backoff and dead-lettering to a file after the last attempt.
 */
final class DriverRun {
  private static final Pattern SUMMARY =
      Pattern.compile(
          "messages=(\\d+) sent=(\\d+) acked=(\\d+) retried=(\\d+) dead-lettered=(\\d+)"
              + " seconds=([0-9.]+) msgs/s=\\d+ answers=(\\S*)");

  /**
   * The driver's summary line.
   *
   * @param answers requests by answer: the HTTP status, or "error" when none came
   */
  record Summary(
      long messages,
      long sent,
      long acked,
      long retried,
      long deadLettered,
      double seconds,
      Map<String, Long> answers) {}

  private final Process process;
  private final Path output;
  final Path deadLetterFile;

  private DriverRun(Process process, Path output, Path deadLetterFile) {
    this.process = process;
    this.output = output;
    this.deadLetterFile = deadLetterFile;
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
    Matcher summary = SUMMARY.matcher(text);
    if (!summary.find()) {
      throw new AssertionError("no summary from the push driver: " + text);
    }
    return new Summary(
        Long.parseLong(summary.group(1)),
        Long.parseLong(summary.group(2)),
        Long.parseLong(summary.group(3)),
        Long.parseLong(summary.group(4)),
        Long.parseLong(summary.group(5)),
        Double.parseDouble(summary.group(6)),
        answers(summary.group(7)));
  }

  private static Map<String, Long> answers(String text) {
    Map<String, Long> answers = new TreeMap<>();
    for (String entry : text.split(",")) {
      int colon = entry.indexOf(':');
      if (colon > 0) {
        answers.put(entry.substring(0, colon), Long.parseLong(entry.substring(colon + 1)));
      }
    }
    return answers;
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
