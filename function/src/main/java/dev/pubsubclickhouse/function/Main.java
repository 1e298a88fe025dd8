package dev.pubsubclickhouse.function;

import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.config.MisspeltVariables;
import dev.pubsubclickhouse.core.config.ParameterHelp;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.function.pull.PullSubscriber;
import java.io.IOException;
import java.util.Map;

/**
 * {@code java -jar function.jar}: checks the configuration, then serves {@link PushFunction}
 * through the Functions Framework ({@link PushServer}) on {@code $PORT} at once; in pull mode
 * (PUBSUB_SUBSCRIPTION) that port serves the probes and metrics, and a {@link PullSubscriber} takes
 * the messages. A wrong setting stops here with one line (exit 2); ClickHouse or a table that does
 * not answer yet does not: the service serves unready until they do ({@link PushService}). With
 * {@code --check} it only checks ClickHouse and the tables and prints their column plans ({@link
 * ServiceCheck}).
 */
public final class Main {
  private Main() {}

  /** What {@code --help} prints: the variables of the README's table, and nothing it ignores. */
  static String help() {
    return "The Pub/Sub push service: serves push requests on $PORT and writes their messages into"
        + " ClickHouse; with PUBSUB_SUBSCRIPTION set it pulls them from that subscription instead.\n"
        + "Usage: java -jar function.jar (configured by environment variables)\n"
        + "       java -jar function.jar --check\n"
        + "  --check  read the configuration, ask ClickHouse for every table the service would"
        + " write,\n"
        + "           print each one's column plan and exit: 0 when the service would serve, 1 when"
        + " not\n"
        + "           (the reasons, naming the table), 2 for a configuration error. Writes"
        + " nothing.\n\n"
        + ParameterHelp.environmentText(PushParameters.ALL);
  }

  private static void warnOfMisspeltVariables() {
    for (String misspelt : MisspeltVariables.in(System.getenv(), PushParameters.ALL)) {
      JsonLog.warning(misspelt, Map.of());
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && ("--help".equals(args[0]) || "-h".equals(args[0]))) {
      System.out.print(help());
      return;
    }
    if (args.length == 1 && "--check".equals(args[0])) {
      // The plan on stdout; warnings (a misspelt variable) and library lines as text on stderr.
      JsonLog.redirect(System.err);
      JsonLog.format(JsonLog.Format.TEXT);
      JsonLog.captureLibraryLogs();
      System.exit(ServiceCheck.run(System.getenv(), System.out, System.err));
      return;
    }
    if (args.length > 0) {
      // Only a flag's name is shown: its value, or a bare argument, may be a password.
      String shown = args[0].startsWith("--") ? args[0].split("=", 2)[0] : "an argument";
      System.err.println(
          "pubsub-clickhouse: the push service reads environment variables, not arguments; got "
              + shown
              + " (only --check is an argument; see --help)");
      System.exit(2);
      return;
    }
    JsonLog.captureLibraryLogs();
    warnOfMisspeltVariables();
    PushService service;
    try {
      PushConfig config = PushConfig.read(System.getenv());
      service = PushService.start(config);
    } catch (ConfigurationException | IllegalStateException e) {
      System.err.println("pubsub-clickhouse: " + e.getMessage());
      System.exit(2);
      return;
    }
    if (service.config().pull().isPresent()) {
      PullSubscriber pull = PullSubscriber.start(service, service.config().pull().get());
      service.alsoDiesWith(pull::failure);
      Runtime.getRuntime().addShutdownHook(new Thread(pull::shutdown, "shutdown"));
    } else {
      service.shutDownWithTheProcess();
    }
    PushServer server;
    try {
      server = PushServer.start(service.config().port(), service);
    } catch (IOException e) {
      // Jetty's "Failed to bind to ..." around the BindException: "Address already in use".
      Throwable why = e.getCause() == null ? e : e.getCause();
      System.err.println(
          "pubsub-clickhouse: "
              + PushParameters.PORT.env()
              + ": cannot listen on port "
              + service.config().port()
              + ": "
              + why.getMessage());
      System.exit(2);
      return;
    }
    JsonLog.info(
        "serving",
        Map.of(
            "port",
            server.port(),
            "threads",
            server.onVirtualThreads() ? "virtual" : "platform",
            "selector",
            server.selectorOnVirtualThread() ? "virtual" : "platform",
            "cpus",
            Runtime.getRuntime().availableProcessors(),
            "jdk",
            Runtime.version().feature()));
    server.join();
  }
}
