package dev.pubsubclickhouse.infra;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Programs some tests run: terraform (its console evaluates expressions and templates without any
 * provider), bash and python3. Where one is missing a test is skipped on a developer's machine;
 * under CI (CI=true, as .ci/run and Cloud Build run) a missing one fails the test instead.
 */
final class LocalTools {
  private LocalTools() {}

  /** The absolute path of {@code program} on PATH; skips (or fails under CI) when absent. */
  static String require(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, program);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError(program + " is not on PATH, and CI needs it for this test");
    }
    assumeTrue(false, program + " is not on PATH");
    return null;
  }

  /** What a finished program wrote and its exit code. */
  record Result(int exitCode, String out, String err) {}

  static Result run(Path dir, String input, Map<String, String> env, String... command) {
    try {
      ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
      builder.environment().putAll(env);
      Path out = Files.createTempFile("tool", ".out");
      Path err = Files.createTempFile("tool", ".err");
      builder.redirectOutput(out.toFile()).redirectError(err.toFile());
      Process process = builder.start();
      process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().close();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not finish in 60 s");
      }
      Result result =
          new Result(
              process.exitValue(),
              Files.readString(out, StandardCharsets.UTF_8),
              Files.readString(err, StandardCharsets.UTF_8));
      Files.delete(out);
      Files.delete(err);
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /**
   * Evaluates {@code expression} with {@code terraform console} in {@code dir} (a root module with
   * no provider: no init, nothing downloaded), with the given -var values.
   */
  static String console(Path dir, String expression, Map<String, String> variables) {
    List<String> command = new ArrayList<>(List.of(require("terraform"), "console"));
    variables.forEach((name, value) -> command.add("-var=" + name + "=" + value));
    Result result =
        run(
            dir,
            expression + "\n",
            Map.of("TF_CLI_CONFIG_FILE", "/dev/null"),
            command.toArray(String[]::new));
    if (result.exitCode() != 0) {
      throw new AssertionError("terraform console: " + expression + "\n" + result.err());
    }
    return result.out().strip();
  }
}
