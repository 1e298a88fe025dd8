package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.cli.Invocation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.assertj.core.api.AbstractStringAssert;

/** One in-process run of the job, as {@code java -jar} would run it, with what it printed. */
record JobRun(int exitCode, String out, String err) {
  static JobRun of(Map<String, String> environment, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = Main.run(new Invocation(new HashMap<>(environment), args, o, e, false));
    }
    return new JobRun(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Asserts that the job exited 0, with what it printed as the message. */
  void assertSucceeded() {
    assertThat(exitCode).as(output()).isZero();
  }

  /**
   * Asserts that the job exited 1, with what it printed as the message, and returns an assertion on
   * its standard output.
   */
  AbstractStringAssert<?> assertFailed() {
    assertThat(exitCode).as(output()).isEqualTo(1);
    return assertThat(out);
  }

  /** Both streams, for assertion messages. */
  String output() {
    return out + err;
  }
}
