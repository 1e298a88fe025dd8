package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** sql/*.sql: re-runnable (the ClickHouse VM applies them at every boot) and as documented. */
class SqlTest {
  private static final Pattern CREATE =
      Pattern.compile("\\bCREATE\\s+(TABLE|DATABASE)\\s+(IF\\s+NOT\\s+EXISTS\\s+)?([\\w.]+)");

  @Test
  void everyCreateStatementIsIfNotExists() throws IOException {
    List<String> notIdempotent;
    try (Stream<Path> files = Files.list(RepoFiles.path("sql"))) {
      notIdempotent =
          files
              .filter(p -> p.toString().endsWith(".sql"))
              .flatMap(
                  p ->
                      creates(p).stream()
                          .filter(c -> c.group(2) == null)
                          .map(c -> p.getFileName() + ": " + c.group()))
              .collect(Collectors.toList());
    }

    assertThat(notIdempotent).isEmpty();
  }

  @Test
  void logsSqlCreatesTheExampleTable() {
    String sql = statements("sql/logs.sql");

    assertThat(sql)
        .contains("CREATE DATABASE IF NOT EXISTS realtime;")
        .containsPattern(
            "CREATE TABLE IF NOT EXISTS realtime\\.logs\\s*\\(\\s*event_time\\s+DateTime,\\s*"
                + "service\\s+String,\\s*level\\s+String,\\s*message\\s+String\\s*\\)\\s*"
                + "ENGINE = MergeTree\\s+ORDER BY event_time;");
  }

  @Test
  void theDeadLetterTableSqlCreatesIt() {
    String sql = statements("sql/dead_letter_table.sql");

    assertThat(sql)
        .containsPattern(
            "CREATE TABLE IF NOT EXISTS realtime\\.logs_dead_letter\\s*\\(\\s*"
                + "raw_message\\s+String,\\s*error_message\\s+String,\\s*stack_trace\\s+String,\\s*"
                + "failed_at\\s+DateTime\\s*\\)\\s*ENGINE = MergeTree\\s+ORDER BY failed_at;");
  }

  /** CREATE statements outside comments. */
  private static List<MatchResult> creates(Path file) {
    try {
      return CREATE
          .matcher(withoutComments(Files.readString(file)))
          .results()
          .collect(Collectors.toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String statements(String relative) {
    return withoutComments(RepoFiles.read(relative));
  }

  private static String withoutComments(String sql) {
    return sql.lines().filter(l -> !l.strip().startsWith("--")).collect(Collectors.joining("\n"));
  }
}
