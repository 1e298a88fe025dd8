package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.function.envelope.RequestHeaders;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The statement of docs/operate.md that purges credentials earlier versions stored in dead-letter
 * rows, run as written against a dead-letter table of sql/dead_letter_table.sql.
 */
@ClickHouseTest
class CredentialPurgeIT {
  private final TestDatabase database;

  CredentialPurgeIT(TestDatabase database) {
    this.database = database;
  }

  static String purgeStatement() throws Exception {
    String page = Files.readString(Path.of("../docs/operate.md"));
    int section = page.indexOf("## Purge credentials from old dead letters");
    assertThat(section).as("the purge section of docs/operate.md").isNotNegative();
    int start = page.indexOf("```sql\n", section) + "```sql\n".length();
    return page.substring(start, page.indexOf("```", start)).strip();
  }

  @Test
  void theStatementNamesEveryDroppedHeader() throws Exception {
    String statement = purgeStatement();
    List<String> missing = new ArrayList<>();
    Stream.concat(RequestHeaders.CREDENTIALS.stream(), RequestHeaders.ADDED_BY_FRONT_ENDS.stream())
        .filter(
            name ->
                RequestHeaders.ADDED_BY_FRONT_ENDS_PREFIXES.stream().noneMatch(name::startsWith))
        .filter(name -> !statement.contains("'" + name + "'"))
        .forEach(missing::add);
    Stream.concat(
            RequestHeaders.CREDENTIAL_PREFIXES.stream(),
            RequestHeaders.ADDED_BY_FRONT_ENDS_PREFIXES.stream())
        .filter(prefix -> !statement.contains("startsWith(lower(k), '" + prefix + "')"))
        .forEach(missing::add);
    assertThat(missing).isEmpty();
  }

  @Test
  void theStatementLeavesOnlyThePublishersAttributes() throws Exception {
    database.execute(
        "CREATE TABLE logs_dead_letter (raw_message String, error_message String,"
            + " stack_trace String, failed_at DateTime, message_id String DEFAULT '',"
            + " attributes Map(String, String) DEFAULT map()) ENGINE = MergeTree ORDER BY failed_at");
    database.execute(
        "INSERT INTO logs_dead_letter (raw_message, failed_at, message_id, attributes) VALUES"
            + " ('a', now(), 'm1', map('team', 'search', 'cookie', 'session=abc',"
            + " 'x-serverless-authorization', 'Bearer t', 'x-goog-iap-jwt-assertion', 'jwt',"
            + " 'X-Forwarded-For', '203.0.113.7')),"
            + " ('b', now(), 'm2', map()),"
            + " ('c', now(), 'm3', map('region', 'eu'))");
    database.execute(
        purgeStatement()
                .replace("realtime.logs_dead_letter", "logs_dead_letter")
                .replaceFirst(";$", "")
            + " SETTINGS mutations_sync = 2");
    assertThat(
            database.query(
                "SELECT message_id, attributes FROM logs_dead_letter ORDER BY message_id"))
        .isEqualTo("m1\t{'team':'search'}\nm2\t{}\nm3\t{'region':'eu'}");
  }
}
