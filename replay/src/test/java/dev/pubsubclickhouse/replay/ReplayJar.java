package dev.pubsubclickhouse.replay;

import dev.pubsubclickhouse.testing.ServiceJava;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** {@code java -jar replay/target/replay.jar} as a user runs it: its own process. */
public final class ReplayJar {
  private ReplayJar() {}

  public static Path jar() {
    Path jar = Path.of(System.getProperty("replay.jar", "target/replay.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no " + jar + ": run mvn package -pl replay -am first");
    }
    return jar;
  }

  /** Runs it to its end (at most two minutes) with these variables; stdout and stderr together. */
  public static Run run(Map<String, String> environment, Path log, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ServiceJava.ofTests().toString());
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("CLICKHOUSE_"));
    builder.environment().putAll(environment);
    Process process = builder.start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("replay.jar did not end: " + Files.readString(log));
    }
    return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8), "");
  }
}
