package dev.pubsubclickhouse.replay;

import dev.pubsubclickhouse.core.log.JsonLog;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/**
 * What each replay command is given: the options they all take, the environment it reads its
 * settings from, and where what a person reads (listings, counts) goes.
 */
public abstract class ReplayCommand implements Callable<Integer> {
  @Mixin protected CommonOptions common;

  protected final Map<String, String> environment;
  protected final PrintStream out;

  protected ReplayCommand(Map<String, String> environment, PrintStream out) {
    this.environment = environment;
    this.out = out;
  }

  /** A wrong flag or setting: one line that names it, and the exit code that says so. */
  protected static int usage(Exception wrong) {
    JsonLog.error("replay: " + wrong.getMessage(), Map.of());
    return ExitCode.USAGE;
  }
}
