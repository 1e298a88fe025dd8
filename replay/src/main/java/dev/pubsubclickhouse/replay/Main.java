package dev.pubsubclickhouse.replay;

import dev.pubsubclickhouse.core.cli.Invocation;
import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.MisspeltVariables;
import dev.pubsubclickhouse.core.config.Parameter;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.messages.MessageParameters;
import dev.pubsubclickhouse.replay.subscription.SubscriptionCommand;
import dev.pubsubclickhouse.replay.table.TableCommand;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar replay.jar table|subscription [--flag=value ...]}: one replay. Exit codes: see
 * {@link ExitCode}.
 */
public final class Main {
  /**
   * Every variable a replay reads: the push service's ClickHouse and message parameters (the table
   * command writes where the service writes) and Secret Manager's endpoint.
   */
  private static final List<Parameter> READ_VARIABLES = readVariables();

  private Main() {}

  private static List<Parameter> readVariables() {
    List<Parameter> read = new ArrayList<>(ClickHouseParameters.ALL);
    read.addAll(MessageParameters.ALL);
    read.add(SecretManagerAccess.ENDPOINT);
    return List.copyOf(read);
  }

  public static void main(String[] args) {
    System.exit(run(Invocation.ofProcess(args)));
  }

  /**
   * Runs one command. What a person reads (listings, counts, progress) goes to standard output;
   * errors and the libraries' records from WARNING up are log lines on standard error, as plain
   * sentences on a terminal.
   */
  public static int run(Invocation invocation) {
    Map<String, String> environment = invocation.environment();
    PrintStream out = invocation.out();
    JsonLog.forCommandLine(
        invocation.err(), invocation.terminal() ? JsonLog.Format.MESSAGE : JsonLog.Format.JSON);
    if (!List.of(invocation.args()).contains("--verbose")) {
      JsonLog.quietClickHouseClient();
    }
    for (String misspelt : MisspeltVariables.in(environment, READ_VARIABLES)) {
      JsonLog.warning(misspelt, Map.of());
    }
    CommandLine line =
        new CommandLine(new Replay())
            .addSubcommand(new TableCommand(environment, out))
            .addSubcommand(new SubscriptionCommand(environment, out));
    line.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    line.setErr(new PrintWriter(invocation.err(), true, StandardCharsets.UTF_8));
    line.setParameterExceptionHandler(
        (failure, arguments) -> {
          JsonLog.error("replay: " + failure.getMessage() + " (see --help)", Map.of());
          return ExitCode.USAGE;
        });
    line.setExecutionExceptionHandler(
        (failure, command, parsed) -> {
          JsonLog.error("replay: stopped by an unexpected failure", Map.of(), failure);
          return ExitCode.FAILED;
        });
    return line.execute(invocation.args());
  }

  /** The top command: says which subcommands there are. */
  @Command(
      name = "java -jar replay.jar",
      description = {
        "Replay dead letters once their cause is fixed:",
        "  table         from the ClickHouse dead-letter table into the target table",
        "  subscription  from a dead-letter subscription to the source topic",
        "Exit codes: 0 done (or nothing matched), 1 stopped by a failure (nothing lost),"
            + " 2 wrong flag or setting, 3 done but some dead letters still do not fit."
      })
  static final class Replay implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "Show this help.")
    boolean help;

    @Override
    public void run() {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "name a command: table or subscription");
    }
  }
}
