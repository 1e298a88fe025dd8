package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.log.JsonLog;
import java.io.PrintStream;
import java.util.Map;

/**
 * {@code java -jar backfill-job.jar [--flag=value ...]}: one task of a backfill. Exit codes: 0 when
 * every row was written or dead-lettered, 1 when the job failed, 2 for a wrong parameter (one line
 * naming it, before anything is read).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    boolean terminal = System.console() != null;
    System.exit(run(System.getenv(), args, System.out, System.err, terminal));
  }

  /**
   * @param terminal draw a progress bar and plain-text lines instead of JSON log lines
   */
  public static int run(
      Map<String, String> environment,
      String[] args,
      PrintStream out,
      PrintStream err,
      boolean terminal) {
    if (CommandLineFlags.wantsHelp(args)) {
      out.print(CommandLineFlags.help());
      return 0;
    }
    // Set first: reading the configuration may warn (a plaintext CLICKHOUSE_URL).
    JsonLog.forCommandLine(out, terminal ? JsonLog.Format.TEXT : JsonLog.Format.JSON);
    BackfillConfig config;
    try {
      config = BackfillConfig.read(environment, args);
    } catch (ConfigurationException e) {
      err.println("backfill: " + e.getMessage());
      return 2;
    }
    JsonLog.neverPrint(config.clickHouse().password().reveal());
    if (!config.verbose()) {
      JsonLog.quietClickHouseClient();
    }
    return new BackfillJob(config, terminal ? err : null).run();
  }
}
