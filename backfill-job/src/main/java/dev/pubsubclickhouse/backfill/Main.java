package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.core.cli.Invocation;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.log.JsonLog;

/**
 * {@code java -jar backfill-job.jar [--flag=value ...]}: one task of a backfill. Exit codes: 0 when
 * every row was written or dead-lettered, 1 when the job failed, 2 for a wrong parameter (one line
 * naming it, before anything is read).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(run(Invocation.ofProcess(args)));
  }

  /** Runs one task; on a terminal it draws a progress bar and plain-text lines, not JSON lines. */
  public static int run(Invocation invocation) {
    String[] args = invocation.args();
    boolean terminal = invocation.terminal();
    if (CommandLineFlags.wantsHelp(args)) {
      invocation.out().print(CommandLineFlags.help());
      return 0;
    }
    // Set first: reading the configuration may warn (a plaintext CLICKHOUSE_URL).
    JsonLog.forCommandLine(invocation.out(), terminal ? JsonLog.Format.TEXT : JsonLog.Format.JSON);
    BackfillConfig config;
    try {
      config = BackfillConfig.read(invocation.environment(), args);
    } catch (ConfigurationException e) {
      invocation.err().println("backfill: " + e.getMessage());
      return 2;
    }
    JsonLog.neverPrint(config.clickHouse().password().reveal());
    if (!config.verbose()) {
      JsonLog.quietClickHouseClient();
    }
    return new BackfillJob(config, terminal ? invocation.err() : null).run();
  }
}
