package dev.pubsubclickhouse.emulator;

import dev.pubsubclickhouse.testing.LocalClickHouse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of its own in a temporary directory, with {@code wal_level=logical} so that
 * Debezium's Postgres connector can read its changes through the built-in {@code pgoutput} plugin,
 * listening on a free port of 127.0.0.1 with trust authentication for the user {@code postgres}.
 * Debian's {@code postgresql} package brings the binaries ({@code /usr/lib/postgresql/N/bin}, or
 * the directory in {@code PG_BIN}). Postgres refuses to run as root, so as root the cluster runs as
 * the package's {@code postgres} user.
 */
final class ThrowAwayPostgres implements AutoCloseable {
  private static final Path DEBIAN = Path.of("/usr/lib/postgresql");

  private final Path bin;
  private final Path data;
  private final int port;
  private final boolean asRoot;

  private ThrowAwayPostgres(Path bin, Path data, int port, boolean asRoot) {
    this.bin = bin;
    this.data = data;
    this.port = port;
    this.asRoot = asRoot;
  }

  /** The directory of {@code initdb} and {@code pg_ctl}, if PostgreSQL is installed. */
  static Optional<Path> binaries() {
    String configured = System.getenv("PG_BIN");
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Path.of(configured)).filter(ThrowAwayPostgres::hasTools);
    }
    if (!Files.isDirectory(DEBIAN)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(DEBIAN)) {
      return versions
          .map(version -> version.resolve("bin"))
          .filter(ThrowAwayPostgres::hasTools)
          .max(Comparator.comparing(ThrowAwayPostgres::majorVersion));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Why the cluster cannot be had here, or empty when it can. */
  static Optional<String> unavailable() {
    if (binaries().isEmpty()) {
      return Optional.of(
          "PostgreSQL is not installed (no initdb and pg_ctl under /usr/lib/postgresql/*/bin or"
              + " PG_BIN): install Debian's package with apt-get install postgresql, as .ci/run"
              + " does");
    }
    if (isRoot() && !userExists("postgres")) {
      return Optional.of(
          "running as root and there is no postgres user to run PostgreSQL as (Debian's"
              + " postgresql package creates it)");
    }
    return Optional.empty();
  }

  static ThrowAwayPostgres start() throws IOException, InterruptedException {
    Path bin = binaries().orElseThrow(() -> new IllegalStateException(unavailable().get()));
    boolean asRoot = isRoot();
    Path data = Files.createTempDirectory("cdc-postgres-");
    ThrowAwayPostgres postgres =
        new ThrowAwayPostgres(bin, data, LocalClickHouse.freePort(), asRoot);
    if (asRoot) {
      run(List.of("chown", "postgres", data.toString()));
    }
    postgres.tool(
        "initdb",
        "-D",
        data.resolve("cluster").toString(),
        "-U",
        "postgres",
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync");
    postgres.tool(
        "pg_ctl",
        "-D",
        data.resolve("cluster").toString(),
        "-l",
        data.resolve("postgres.log").toString(),
        "-w",
        "-t",
        "60",
        "-o",
        "-p "
            + postgres.port
            + " -c listen_addresses=127.0.0.1 -c unix_socket_directories="
            + data
            + " -c wal_level=logical -c max_wal_senders=4 -c max_replication_slots=4"
            + " -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
        "start");
    return postgres;
  }

  int port() {
    return port;
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
  }

  /** Its server log, for a failed run. */
  String log() {
    try {
      return Files.readString(data.resolve("postgres.log"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      tool("pg_ctl", "-D", data.resolve("cluster").toString(), "-m", "immediate", "-w", "stop");
    } finally {
      try (Stream<Path> files = Files.walk(data)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }

  private void tool(String name, String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    if (asRoot) {
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.add(bin.resolve(name).toString());
    command.addAll(List.of(arguments));
    run(command);
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .directory(new java.io.File("/"))
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(90, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", command) + " failed: " + output);
    }
  }

  private static boolean hasTools(Path bin) {
    return Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("pg_ctl"));
  }

  private static int majorVersion(Path bin) {
    try {
      return Integer.parseInt(bin.getParent().getFileName().toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static boolean userExists(String user) {
    try {
      return Files.readAllLines(Path.of("/etc/passwd")).stream()
          .anyMatch(line -> line.startsWith(user + ":"));
    } catch (IOException e) {
      return false;
    }
  }
}
