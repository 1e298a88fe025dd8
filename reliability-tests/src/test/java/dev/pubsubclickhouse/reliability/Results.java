package dev.pubsubclickhouse.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The measured numbers of a run, one line each, appended to {@code
 * target/reliability-results/<file>} (and printed), so docs/reliability.md can quote the last run.
 */
final class Results {
  private Results() {}

  static int messages() {
    return Integer.getInteger("reliability.messages", 300);
  }

  static int rounds() {
    return Integer.getInteger("reliability.rounds", 1);
  }

  /** Requests the push driver keeps in flight. */
  static int concurrency() {
    return Integer.getInteger("reliability.concurrency", 16);
  }

  static int overloadSeconds() {
    return Integer.getInteger("reliability.overloadSeconds", 8);
  }

  /**
   * A new directory for one run's logs, {@code runs/<name>-<millis>}, kept under target/ (not a
   * temporary folder) so that the logs of a failed run can be read.
   */
  static Path runDirectory(String name) throws IOException {
    return Files.createDirectories(
        directory().resolve("runs").resolve(name + "-" + System.currentTimeMillis()));
  }

  private static Path directory() {
    return Path.of(System.getProperty("reliability.results", "target/reliability-results"));
  }

  static void record(String file, String line) {
    String stamped = Instant.now() + "\t" + line;
    System.out.println("RESULT " + file + ": " + stamped);
    Path directory = directory();
    try {
      Files.createDirectories(directory);
      Files.writeString(
          directory.resolve(file),
          stamped + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
