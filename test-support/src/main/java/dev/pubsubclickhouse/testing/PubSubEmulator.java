package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * gcloud's Pub/Sub emulator on this machine, run by {@code scripts/pubsub-emulator} (the same
 * script {@code scripts/demo} and users run) on a free port, with its pid and log in one directory.
 * It pushes to real HTTP endpoints, redelivers what they refuse and applies dead-letter policies;
 * {@link #rest(String)} administers and publishes. Where it is not installed, {@link #start} fails
 * with the line that installs it.
 */
public final class PubSubEmulator {
  private final Path directory;
  private final int port;

  private PubSubEmulator(Path directory, int port) {
    this.directory = directory;
    this.port = port;
  }

  /** Starts an emulator on a free port, its pid and log in {@code directory}; waits until ready. */
  public static PubSubEmulator start(Path directory) {
    PubSubEmulator emulator = new PubSubEmulator(directory, LocalClickHouse.freePort());
    emulator.run("start", 90);
    return emulator;
  }

  /** {@code 127.0.0.1:port}: what {@code PUBSUB_EMULATOR_HOST} and {@code PUBSUB_ENDPOINT} take. */
  public String host() {
    return "127.0.0.1:" + port;
  }

  /** The emulator's log (one line per push it fails, the dead-letter moves it makes). */
  public Path log() {
    return directory.resolve("emulator.log");
  }

  /** Its REST API for one project: topics, subscriptions, publish, pull, seek. */
  public PubSubRest rest(String project) {
    return new PubSubRest("http://" + host(), project);
  }

  /** Stops it (SIGTERM); everything it held is gone. */
  public void stop() {
    run("stop", 30);
  }

  private void run(String command, long timeoutSeconds) {
    Path script = LocalClickHouse.repositoryRoot().resolve("scripts/pubsub-emulator");
    ProcessBuilder builder = new ProcessBuilder(List.of("bash", script.toString(), command));
    builder
        .environment()
        .putAll(
            Map.of(
                "PUBSUB_EMULATOR_PORT", Integer.toString(port),
                "PUBSUB_EMULATOR_DIR", directory.toString(),
                "PUBSUB_EMULATOR_OWNER_PID", Long.toString(ProcessHandle.current().pid())));
    builder.redirectErrorStream(true);
    try {
      Files.createDirectories(directory);
      Path output = Files.createTempFile(directory, "script", ".out");
      builder.redirectOutput(output.toFile());
      Process process = builder.start();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "scripts/pubsub-emulator " + command + " timed out after " + timeoutSeconds + " s");
      }
      String text = Files.readString(output, StandardCharsets.UTF_8).trim();
      Files.deleteIfExists(output);
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "scripts/pubsub-emulator "
                + command
                + " failed ("
                + process.exitValue()
                + "): "
                + text);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
