package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * The login of sql/grants.sql on the test run's own server: {@code scripts/clickhouse-local} gives
 * the user {@value #USER} exactly the grants of that file, on the tables of sql/logs.sql and
 * sql/dead_letter_table.sql in the database {@code realtime}. A test that runs the service, the
 * backfill or replay as this user fails where the file lacks a grant they need.
 */
public final class GrantsSqlUser {
  public static final String USER = "realtime_writer";

  /** The password scripts/clickhouse-local gives it. */
  public static final String PASSWORD = "local-writer-password";

  private GrantsSqlUser() {}

  /**
   * Makes {@code realtime.logs} and {@code realtime.logs_dead_letter} anew from the repository's
   * SQL files, as the administrator of {@code database}'s server, and returns the login of the user
   * of sql/grants.sql. Skips the test on a server this run did not start (CLICKHOUSE_URL), which
   * has no such user.
   */
  public static ClickHouseServer on(TestDatabase database) {
    Assumptions.assumeTrue(
        "1".equals(database.query("SELECT count() FROM system.users WHERE name = '" + USER + "'")),
        "the server has no user " + USER + " (only a server of scripts/clickhouse-local has)");
    database.execute("DROP DATABASE IF EXISTS realtime SYNC");
    for (String file : List.of("sql/logs.sql", "sql/dead_letter_table.sql")) {
      statements(file).forEach(database::execute);
    }
    ClickHouseServer admin = database.server();
    return new ClickHouseServer(admin.url(), USER, PASSWORD);
  }

  /** The statements of a SQL file of the repository, comments aside. */
  public static List<String> statements(String file) {
    try {
      String text = Files.readString(LocalClickHouse.repositoryRoot().resolve(file));
      return Arrays.stream(text.replaceAll("--[^\\n]*", "").split(";"))
          .map(String::strip)
          .filter(statement -> !statement.isEmpty())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
