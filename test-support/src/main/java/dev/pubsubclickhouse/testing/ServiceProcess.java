package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code java -jar function/target/function.jar} as Cloud Run runs it: a process of its own on a
 * fixed port, configured by environment variables, that can be stopped with SIGTERM, killed with
 * SIGKILL and started again on the same port. Every start appends to one log file.
 */
public final class ServiceProcess implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private final Map<String, String> environment;
  private final List<String> jvmOptions;
  private final Path log;
  private final int port;
  private Process process;

  public ServiceProcess(
      Map<String, String> environment, List<String> jvmOptions, Path log, int port) {
    this.environment = new HashMap<>(environment);
    this.environment.put("PORT", Integer.toString(port));
    this.environment.putIfAbsent("SUMMARY_INTERVAL_SECONDS", "3600");
    this.jvmOptions = List.copyOf(jvmOptions);
    this.log = log;
    this.port = port;
  }

  /**
   * The service with {@code environment}, a heap of 256 MB and the serial collector (room for
   * several beside the tests on one machine), on a free port, its log in {@code log}; not started.
   */
  public static ServiceProcess small(Map<String, String> environment, Path log) {
    return new ServiceProcess(
        environment, List.of("-Xmx256m", "-XX:+UseSerialGC"), log, LocalClickHouse.freePort());
  }

  public static Path jar() {
    Path jar = Path.of(System.getProperty("function.jar", "../function/target/function.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no " + jar + ": run mvn package -pl function first");
    }
    return jar;
  }

  public URI url() {
    return URI.create("http://127.0.0.1:" + port + "/");
  }

  public int port() {
    return port;
  }

  public Path log() {
    return log;
  }

  public long pid() {
    return process.pid();
  }

  /** Starts the jar expecting it to stop at start (a refused setting); returns its exit code. */
  public int startExpectingExit() throws Exception {
    launch();
    if (!process.waitFor(90, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("the service did not stop: " + output());
    }
    return process.exitValue();
  }

  /**
   * Starts the jar expecting it to serve unready (ClickHouse refuses it); returns what /healthz
   * answers once the service has asked ClickHouse.
   */
  public String startExpectingUnready() throws Exception {
    launch();
    HttpResponse<String> health =
        awaitHealth(
            answer -> answer.statusCode() == 200 || !answer.body().startsWith("starting:"),
            "the service did not ask ClickHouse");
    if (health.statusCode() == 200) {
      throw new IllegalStateException("the service became ready: " + output());
    }
    return health.body();
  }

  /** Starts the jar and waits until /healthz answers 200. */
  public ServiceProcess start() throws Exception {
    launch();
    awaitHealth(answer -> answer.statusCode() == 200, "the service did not become ready");
    return this;
  }

  /**
   * Asks /healthz until its answer is {@code settled}, for at most 90 s; fails when the process
   * exits first.
   */
  private HttpResponse<String> awaitHealth(
      Predicate<HttpResponse<String>> settled, String otherwise) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the service exited at start: " + output());
      }
      try {
        HttpResponse<String> health = get("/healthz");
        if (settled.test(health)) {
          return health;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(otherwise + ": " + output());
  }

  private void launch() throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ServiceJava.forService().toString());
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(jar().toString());
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().keySet().removeIf(name -> name.startsWith("CLICKHOUSE_"));
    builder.environment().putAll(environment);
    process = builder.start();
  }

  /** The same service with some settings changed (a new process when started). */
  public ServiceProcess with(Map<String, String> changes) {
    Map<String, String> changed = new HashMap<>(environment);
    changed.putAll(changes);
    return new ServiceProcess(changed, jvmOptions, log, port);
  }

  /** SIGTERM, as Cloud Run sends it; waits for the exit. */
  public int terminate() throws InterruptedException {
    process.toHandle().destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the service did not exit within 30 s of SIGTERM");
    }
    return process.exitValue();
  }

  /** SIGKILL: no shutdown hook, nothing answered. */
  public void kill() throws InterruptedException {
    process.toHandle().destroyForcibly();
    process.waitFor(15, TimeUnit.SECONDS);
  }

  public boolean alive() {
    return process != null && process.isAlive();
  }

  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(url().resolve(path)).timeout(Duration.ofSeconds(5)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A counter or gauge from /metrics, e.g. {@code pubsub_clickhouse_inserted_rows_total}; the
   * Prometheus text writes every value as a double ({@code 20.0}, {@code 1.23456789E8}).
   */
  public long metric(String name) throws IOException, InterruptedException {
    Matcher value =
        Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(get("/metrics").body());
    return value.find() ? (long) Double.parseDouble(value.group(1)) : -1;
  }

  public String output() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  public void note(String line) throws IOException {
    Files.writeString(
        log, "### test: " + line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  @Override
  public void close() throws InterruptedException {
    if (alive()) {
      terminate();
    }
  }
}
