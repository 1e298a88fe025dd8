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

  static void record(String file, String line) {
    String stamped = Instant.now() + "\t" + line;
    System.out.println("RESULT " + file + ": " + stamped);
    Path directory =
        Path.of(System.getProperty("reliability.results", "target/reliability-results"));
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
