package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A ClickHouse server on this machine, run by {@code scripts/clickhouse-local} (the same script
 * users run), bound to one data directory and port. Tests that stop, kill and restart a server get
 * their own instance; the rest share one through {@link ClickHouseExtension}.
 */
public final class LocalClickHouse {
  /** The password of the {@code pipeline} user the script configures. */
  public static final String PIPELINE_USER = "pipeline";

  public static final String PIPELINE_PASSWORD = "local-pipeline-password";

  private final Path directory;
  private final int port;
  private final Map<String, String> clusterEnvironment;

  private LocalClickHouse(Path directory, int port, Map<String, String> clusterEnvironment) {
    this.directory = directory;
    this.port = port;
    this.clusterEnvironment = Map.copyOf(clusterEnvironment);
  }

  /**
   * Starts a server on a free port with its data in {@code directory}. One that started but did not
   * answer in time is stopped, not left running until this JVM ends; its {@code server.log} stays.
   */
  public static LocalClickHouse start(Path directory) {
    LocalClickHouse server = new LocalClickHouse(directory, freePort(), Map.of());
    try {
      server.start();
    } catch (RuntimeException e) {
      try {
        server.stop();
      } catch (RuntimeException stop) {
        e.addSuppressed(stop);
      }
      throw e;
    }
    return server;
  }

  /**
   * A server on a free port with its data in {@code directory}, not started: its URL is known
   * before anything listens there, as for a service deployed before its ClickHouse.
   */
  public static LocalClickHouse unstarted(Path directory) {
    return new LocalClickHouse(directory, freePort(), Map.of());
  }

  /**
   * A server that also serves the native protocol on {@code tcpPort} and knows the cluster {@link
   * LocalCluster#NAME} of the shards at {@code shardAddresses} ({@code host:port,...}); not
   * started.
   */
  static LocalClickHouse shard(Path directory, int tcpPort, String shardAddresses) {
    return new LocalClickHouse(
        directory,
        freePort(),
        Map.of(
            "CLICKHOUSE_LOCAL_TCP_PORT",
            Integer.toString(tcpPort),
            "CLICKHOUSE_LOCAL_CLUSTER",
            shardAddresses));
  }

  /** Where its data, configuration and {@code server.log} are. */
  public Path directory() {
    return directory;
  }

  public String url() {
    return "http://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** Starts it again after {@link #stop()} or {@link #kill()}; the data is kept. */
  public void start() {
    run("start", TimeUnit.MINUTES.toSeconds(10));
  }

  /** Stops it politely (SIGTERM, then SIGKILL after 5 s). */
  public void stop() {
    run("stop", 30);
  }

  /** Kills it at once, as a crash would. */
  public void kill() {
    try {
      String pid = Files.readString(directory.resolve("server.pid")).trim();
      ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
      ProcessHandle.of(Long.parseLong(pid)).ifPresent(p -> p.onExit().join());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The script's own status check: true when SELECT 1 answers. */
  public static boolean answers(Map<String, String> environment) {
    return execute(List.of("status"), environment, 10).exitCode == 0;
  }

  static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("scripts/clickhouse-local"))) {
        return p;
      }
    }
    throw new IllegalStateException("no scripts/clickhouse-local above " + dir);
  }

  private void run(String command, long timeoutSeconds) {
    Map<String, String> environment = new HashMap<>(clusterEnvironment);
    environment.put("CLICKHOUSE_LOCAL_PORT", Integer.toString(port));
    environment.put("CLICKHOUSE_LOCAL_DIR", directory.toString());
    environment.put("CLICKHOUSE_LOCAL_OWNER_PID", Long.toString(ProcessHandle.current().pid()));
    Result result = execute(List.of(command), environment, timeoutSeconds);
    if (result.exitCode != 0) {
      throw new IllegalStateException(
          "scripts/clickhouse-local "
              + command
              + " failed ("
              + result.exitCode
              + "): "
              + result.output);
    }
  }

  private record Result(int exitCode, String output) {}

  private static Result execute(
      List<String> arguments, Map<String, String> environment, long timeoutSeconds) {
    Path script = repositoryRoot().resolve("scripts/clickhouse-local");
    ProcessBuilder builder = new ProcessBuilder();
    builder.command().add("bash");
    builder.command().add(script.toString());
    builder.command().addAll(arguments);
    builder.environment().putAll(environment);
    builder.redirectErrorStream(true);
    try {
      Path log = Files.createTempFile("clickhouse-local", ".log");
      builder.redirectOutput(log.toFile());
      Process process = builder.start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Result(-1, "timed out after " + timeoutSeconds + " s");
      }
      String output = Files.readString(log, StandardCharsets.UTF_8).trim();
      Files.deleteIfExists(log);
      return new Result(process.exitValue(), output);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
