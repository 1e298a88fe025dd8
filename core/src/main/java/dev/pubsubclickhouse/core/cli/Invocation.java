package dev.pubsubclickhouse.core.cli;

import java.io.PrintStream;
import java.util.Map;

/**
 * How a command-line program was started: its environment, its arguments and where it prints. A
 * program's {@code main} runs with {@link #ofProcess}; tests run it in-process with their own
 * environment and streams.
 *
 * @param terminal a person is watching (the process has a console), so the program may print for
 *     them instead of JSON log lines
 */
public record Invocation(
    Map<String, String> environment,
    String[] args,
    PrintStream out,
    PrintStream err,
    boolean terminal) {

  /** This process's environment and standard streams. */
  public static Invocation ofProcess(String[] args) {
    return new Invocation(System.getenv(), args, System.out, System.err, System.console() != null);
  }

  /**
   * Names neither the environment nor the arguments: either may hold a password (a record's own
   * {@code toString} would print every variable).
   */
  @Override
  public String toString() {
    return "Invocation[" + args.length + " arguments, terminal=" + terminal + "]";
  }
}
