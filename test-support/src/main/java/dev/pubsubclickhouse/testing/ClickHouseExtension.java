package dev.pubsubclickhouse.testing;

import com.clickhouse.client.api.Client;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class a real ClickHouse and a database of its own (a {@link TestDatabase}
 * parameter). The server is, in order: the one {@code CLICKHOUSE_URL} names (with {@code
 * CLICKHOUSE_USER}/{@code CLICKHOUSE_PASSWORD}), else one started for this test run on a free port,
 * with its data in a directory of its own under {@code target/test-clickhouse/}, and stopped (its
 * directory deleted) after it.
 */
public final class ClickHouseExtension extends ClassScopedExtension<TestDatabase>
    implements AfterAllCallback {
  public ClickHouseExtension() {
    super(TestDatabase.class, TestDatabase.class);
  }

  @Override
  TestDatabase create(ExtensionContext context) {
    ClickHouseServer server = sharedServer(context);
    String name =
        "test_"
            + context.getRequiredTestClass().getSimpleName().toLowerCase(Locale.ROOT)
            + "_"
            + UUID.randomUUID().toString().substring(0, 8);
    try (Client admin = client(server, "default")) {
      new TestDatabase(server, name, admin).execute("CREATE DATABASE " + name);
    }
    return new TestDatabase(server, name, client(server, name));
  }

  private static Client client(ClickHouseServer server, String database) {
    return new Client.Builder()
        .addEndpoint(server.url())
        .setUsername(server.user())
        .setPassword(server.password())
        .setDefaultDatabase(database)
        .setClientName("test-support")
        .build();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    TestDatabase database = remove(context);
    if (database != null) {
      database.execute("DROP DATABASE IF EXISTS " + database.name() + " SYNC");
      database.client().close();
    }
  }

  @Override
  Object parameter(TestDatabase database) {
    return database;
  }

  private ClickHouseServer sharedServer(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(namespace())
        .getOrComputeIfAbsent(ServerHolder.class, key -> new ServerHolder(), ServerHolder.class)
        .server;
  }

  /** The run's server; closing the root store stops it if this run started it. */
  private static final class ServerHolder implements ExtensionContext.Store.CloseableResource {
    final ClickHouseServer server;
    final LocalClickHouse started;

    ServerHolder() {
      Map<String, String> env = System.getenv();
      String url = env.get("CLICKHOUSE_URL");
      if (url != null && !url.isBlank()) {
        server =
            new ClickHouseServer(
                url,
                env.getOrDefault("CLICKHOUSE_USER", "default"),
                env.getOrDefault("CLICKHOUSE_PASSWORD", ""));
        started = null;
      } else {
        // Never a server that merely answers on the default port: a developer's, or another
        // checkout's test run, can stop it in the middle of this run.
        started = startOwnServer();
        server = new ClickHouseServer(started.url(), "default", "");
      }
    }

    @Override
    public void close() {
      if (started != null) {
        stopOwnServer(started);
      }
    }
  }

  /**
   * Starts a server for this test run in a directory of its own under {@code
   * target/test-clickhouse/}: two test JVMs of one checkout can run at once (modules built in
   * parallel, {@code -DforkCount=2}, two {@code mvn verify -pl ...}), and one data directory holds
   * one server only (the second failed to start, and its pid file then named no running server).
   */
  static LocalClickHouse startOwnServer() {
    try {
      Path runs = Files.createDirectories(LocalClickHouse.repositoryRoot().resolve(RUNS));
      return LocalClickHouse.start(Files.createTempDirectory(runs, "run-"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops a server of {@link #startOwnServer()} and deletes its directory. */
  static void stopOwnServer(LocalClickHouse server) {
    server.stop();
    Directories.delete(server.directory());
  }

  private static final String RUNS = "target/test-clickhouse";
}
