package dev.pubsubclickhouse.replay.table;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.replay.Run;
import dev.pubsubclickhouse.replay.table.Letters.Letter;
import dev.pubsubclickhouse.replay.table.Letters.Row;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.JsonValues;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code replay.jar table} against the real ClickHouse: dead letters written as the service writes
 * them, replayed into a target table in the exactly-once layout, and every stored value compared
 * with what the dead letters held.
 */
@ClickHouseTest
class TableReplayIT {
  private static final Instant T0 = Instant.parse("2026-01-15T10:00:00Z");
  private static final String OLD_REASON = "column 'id' (UInt8) rejects 300: out of range";

  private final TestDatabase database;
  private final Sql sql;

  TableReplayIT(TestDatabase database) {
    this.database = database;
    this.sql = Sql.of(database);
  }

  private Map<String, String> env(String target, String deadLetters) {
    Map<String, String> env = database.server().environment(database.name());
    env.put("CLICKHOUSE_TABLE", target);
    env.put("CLICKHOUSE_DEAD_LETTER_TABLE", deadLetters);
    return env;
  }

  private Run replay(String target, String deadLetters, String... flags) {
    List<String> args = new ArrayList<>(List.of("table"));
    args.addAll(List.of(flags));
    if (args.stream().noneMatch(arg -> arg.startsWith("--maxPerSecond="))) {
      args.add("--maxPerSecond=0");
    }
    return Run.of(env(target, deadLetters), args.toArray(String[]::new));
  }

  private static List<Letter> letters(long firstId, int count, Instant failedAt) {
    List<Letter> letters = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      letters.add(Letters.letter(id, OLD_REASON, failedAt.plusSeconds(id)));
    }
    return letters;
  }

  @Test
  void fixedDeadLettersLandInTheTargetWithTheirMetadataAsTheyWereAndLeaveTheTable() {
    Letters.createTarget(sql, "fixed");
    Letters.createDeadLetterTable(sql, "fixed_dead");
    List<Letter> letters = new ArrayList<>(letters(1, 6, T0));
    // A JSON array is one message of several rows: they land together, with their row indexes.
    letters.add(
        Letters.letter(7, OLD_REASON, T0.plusSeconds(30))
            .withData("[" + Letters.event(7) + "," + Letters.event(8) + "]"));
    Letters.insert(sql, "fixed_dead", letters);

    Run run = replay("fixed", "fixed_dead", "--batchSize=3");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains(
            "replayed 7 dead letters from "
                + database.name()
                + ".fixed_dead: 7 written to "
                + database.name()
                + ".fixed, 0 still do not fit");
    assertThat(Letters.rowsFinal(sql, "fixed"))
        .containsExactlyInAnyOrderElementsOf(Letters.expectedRows(letters, true));
    assertThat(sql.number("SELECT count() FROM fixed")).as("each row written once").isEqualTo(8);
    assertThat(Letters.deadLetterRows(sql, "fixed_dead")).isEmpty();
  }

  @Test
  void aDeadLetterGoesBackToTheTableItsAttributeNamesAndOnlyThere() {
    Letters.createTarget(sql, "route_a");
    Letters.createTarget(sql, "route_b");
    Letters.createDeadLetterTable(sql, "route_dead");
    Letter toDefault = Letters.letter(111, OLD_REASON, T0);
    Letter toB =
        Letters.letter(112, OLD_REASON, T0.plusSeconds(1)).withAttribute("table", "route_b");
    Letter toNotAllowed =
        Letters.letter(113, OLD_REASON, T0.plusSeconds(2)).withAttribute("table", "route_c");
    Letters.insert(sql, "route_dead", List.of(toDefault, toB, toNotAllowed));
    Map<String, String> env = env("route_a", "route_dead");
    env.put("CLICKHOUSE_TABLE_ATTRIBUTE", "table");
    env.put("CLICKHOUSE_TABLES", "route_b");

    Run run = Run.of(env, "table", "--maxPerSecond=0");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.out())
        .contains(
            "2 written (1 to "
                + database.name()
                + ".route_a, 1 to "
                + database.name()
                + ".route_b), 1 still do not fit");
    assertThat(Letters.rowsFinal(sql, "route_a"))
        .containsExactlyElementsOf(Letters.expectedRows(List.of(toDefault), true));
    assertThat(Letters.rowsFinal(sql, "route_b"))
        .containsExactlyElementsOf(Letters.expectedRows(List.of(toB), true));
    List<Map<String, String>> kept = Letters.deadLetterRows(sql, "route_dead");
    assertThat(kept).extracting(row -> row.get("message_id")).containsExactly("9000113");
    assertThat(kept.get(0).get("error_message"))
        .contains("names table " + database.name() + ".route_c, which is not one of");
  }

  @Test
  void fieldsNoColumnTakesGoToTheUnknownFieldsColumnAsTheServiceWouldHavePutThem() {
    Letters.createTarget(sql, "unknown");
    sql.query("ALTER TABLE unknown ADD COLUMN extra String");
    Letters.createDeadLetterTable(sql, "unknown_dead");
    ObjectNode data = Letters.event(121);
    data.put("colour", "red");
    Letter letter = Letters.letter(121, OLD_REASON, T0).withData(data.toString());
    Letters.insert(sql, "unknown_dead", List.of(letter));
    Map<String, String> env = env("unknown", "unknown_dead");
    env.put("UNKNOWN_FIELDS_COLUMN", "extra");

    Run run = Run.of(env, "table", "--maxPerSecond=0");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(Letters.rowsFinal(sql, "unknown"))
        .containsExactlyElementsOf(Letters.expectedRows(List.of(letter), true));
    assertThat(JsonValues.read(sql.query("SELECT extra FROM unknown FORMAT TSVRaw").trim()))
        .isEqualTo(JsonValues.read("{\"colour\":\"red\"}"));
    assertThat(Letters.deadLetterRows(sql, "unknown_dead")).isEmpty();
  }

  @Test
  void columnMappingIsAppliedAsTheServiceAppliesIt() {
    Letters.createTarget(sql, "mapped");
    sql.query(
        "ALTER TABLE mapped ADD COLUMN user_id UInt32, ADD COLUMN raw String,"
            + " ADD COLUMN origin String");
    Letters.createDeadLetterTable(sql, "mapped_dead");
    ObjectNode data = Letters.event(141);
    data.putObject("user").put("id", 42);
    Letter fits =
        Letters.letter(141, OLD_REASON, T0).withData(data.toString()).withAttribute("origin", "eu");
    Letter noUser = Letters.letter(142, OLD_REASON, T0.plusSeconds(1));
    Letters.insert(sql, "mapped_dead", List.of(fits, noUser));
    Map<String, String> env = env("mapped", "mapped_dead");
    env.put("COLUMN_MAPPING", "user_id=user.id,raw=$data,origin=$attributes.origin");

    Run run = Run.of(env, "table", "--maxPerSecond=0");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(Letters.rowsFinal(sql, "mapped"))
        .containsExactlyElementsOf(Letters.expectedRows(List.of(fits), true));
    assertThat(sql.query("SELECT user_id, raw, origin FROM mapped FORMAT TSVRaw").trim())
        .isEqualTo("42\t" + data + "\teu");
    List<Map<String, String>> kept = Letters.deadLetterRows(sql, "mapped_dead");
    assertThat(kept).extracting(row -> row.get("message_id")).containsExactly("9000142");
    assertThat(kept.get(0).get("error_message"))
        .startsWith(
            "column 'user_id' (UInt32) from user.id rejects (missing): a value is required");
  }

  @Test
  void aPayloadThatIsNotUtf8ComesBackAsItsOwnBytes() throws Exception {
    Letters.createTarget(sql, "binary");
    Letters.createDeadLetterTable(sql, "binary_dead");
    // gzip, expanding past a 1024-byte cap: the first run makes it a dead letter of the gzip bytes
    // (not UTF-8), the second, with the default cap, must read those bytes again.
    ObjectNode event = Letters.event(131);
    event.put("name", "x".repeat(2_000));
    byte[] gzip = Letters.gzip(event.toString());
    Letter letter = Letters.letter(131, OLD_REASON, T0).withData("");
    Letters.insert(sql, "binary_dead", List.of(letter));
    sql.query(
        "ALTER TABLE binary_dead UPDATE raw_message = unhex('"
            + java.util.HexFormat.of().formatHex(gzip)
            + "') WHERE 1 SETTINGS mutations_sync = 1");
    Map<String, String> capped = env("binary", "binary_dead");
    capped.put("MAX_DECOMPRESSED_BYTES", "1024");

    Run first = Run.of(capped, "table", "--maxPerSecond=0");
    assertThat(first.exitCode()).as(first.toString()).isEqualTo(3);
    assertThat(first.out()).contains("data expands beyond 1024 bytes");
    assertThat(Letters.deadLetterRows(sql, "binary_dead").get(0).get("stack_trace"))
        .endsWith(" rawMessageEncoding=base64");
    Thread.sleep(1_100);
    Run second = replay("binary", "binary_dead");

    assertThat(second.exitCode()).as(second.toString()).isZero();
    assertThat(sql.query("SELECT id, length(name) FROM binary FORMAT TSV")).isEqualTo("131\t2000");
    assertThat(Letters.deadLetterRows(sql, "binary_dead")).isEmpty();
  }

  @Test
  void theLargestBatchIsWrittenAndLeavesTheTable() {
    Letters.createTarget(sql, "large");
    Letters.createDeadLetterTable(sql, "large_dead");
    // ~35 bytes a key in the DELETE: 10,000 keys are past ClickHouse's default max_query_size.
    Letters.insert(sql, "large_dead", letters(1_000, 10_000, T0));

    Run run = replay("large", "large_dead", "--batchSize=10000");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("replayed 10000 dead letters");
    assertThat(sql.number("SELECT count() FROM large")).isEqualTo(10_000);
    assertThat(sql.number("SELECT count() FROM large_dead")).isZero();
  }

  @Test
  void aSchemaThatCannotBeFetchedStopsTheRunWithEveryDeadLetterUnchanged() {
    Letters.createTarget(sql, "schemaless");
    Letters.createDeadLetterTable(sql, "schemaless_dead");
    Letter withSchema =
        Letters.letter(141, OLD_REASON, T0)
            .withAttribute("googclient_schemaname", "projects/p/schemas/events")
            .withAttribute("googclient_schemarevisionid", "r1")
            .withAttribute("googclient_schemaencoding", "JSON");
    Letters.insert(
        sql, "schemaless_dead", List.of(withSchema, Letters.letter(142, OLD_REASON, T0)));
    List<Map<String, String>> before = Letters.deadLetterRows(sql, "schemaless_dead");
    Map<String, String> env = env("schemaless", "schemaless_dead");
    env.put("PUBSUB_ENDPOINT", "127.0.0.1:1");

    Run run = Run.of(env, "table", "--maxPerSecond=0");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.err())
        .startsWith(
            "replay stopped: message 9000141 (failed " + withSchema.failedAt() + "): schema")
        .contains("projects/p/schemas/events@r1 could not be fetched")
        .contains("Dead letters not replayed are still in");
    assertThat(Letters.deadLetterRows(sql, "schemaless_dead")).isEqualTo(before);
    assertThat(sql.number("SELECT count() FROM schemaless")).isZero();
  }

  /**
   * A column the user added later with a DEFAULT that changes at every read (now64 here): in the
   * parts older than the column ClickHouse computes it when read, so a key over it would differ
   * between reading a row and deleting it, and the delete would find nothing.
   */
  @Test
  void aColumnAddedWithAChangingDefaultDoesNotKeepRowsFromLeaving() {
    Letters.createTarget(sql, "noted");
    Letters.createDeadLetterTable(sql, "noted_dead");
    List<Letter> letters = letters(31, 3, T0);
    Letters.insert(sql, "noted_dead", letters);
    database.execute("ALTER TABLE noted_dead ADD COLUMN noted DateTime64(9) DEFAULT now64(9)");

    Run run = replay("noted", "noted_dead");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(sql.number("SELECT count() FROM noted_dead")).isZero();
    assertThat(Letters.rowsFinal(sql, "noted"))
        .containsExactlyInAnyOrderElementsOf(Letters.expectedRows(letters, true));
  }

  @Test
  void aSecondReplayFindsNothingAndChangesNothing() {
    Letters.createTarget(sql, "twice");
    Letters.createDeadLetterTable(sql, "twice_dead");
    List<Letter> letters = letters(11, 4, T0);
    Letters.insert(sql, "twice_dead", letters);
    Run first = replay("twice", "twice_dead");
    assertThat(first.exitCode()).as(first.toString()).isZero();
    String before = sql.query("SELECT * FROM twice ORDER BY _pubsub_message_id FORMAT TSV");

    Run second = replay("twice", "twice_dead");

    assertThat(second.exitCode()).as(second.toString()).isZero();
    assertThat(second.out())
        .contains(
            "no dead letters to replay: none in "
                + database.name()
                + ".twice_dead matches any dead letter");
    assertThat(sql.query("SELECT * FROM twice ORDER BY _pubsub_message_id FORMAT TSV"))
        .isEqualTo(before);
    assertThat(Letters.rowsFinal(sql, "twice"))
        .containsExactlyInAnyOrderElementsOf(Letters.expectedRows(letters, true));
    assertThat(sql.number("SELECT count() FROM twice")).isEqualTo(4);
  }

  @Test
  void aMessageThatStillDoesNotFitStaysOnceWithTheNewReasonAndNothingElseOfIt()
      throws InterruptedException {
    Letters.createTarget(sql, "still");
    Letters.createDeadLetterTable(sql, "still_dead");
    Letter fits = Letters.letter(21, OLD_REASON, T0);
    Letter negative =
        Letters.letter(22, OLD_REASON, T0.plusSeconds(1))
            .withData("[" + Letters.event(22) + ",{\"id\":-5,\"name\":\"x\"}]");
    Letters.insert(sql, "still_dead", List.of(fits, negative));
    Instant start = Instant.now().minusSeconds(1);

    Run run = replay("still", "still_dead");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.out())
        .contains("still does not fit: message 9000022 (failed " + negative.failedAt() + ")");
    assertThat(Letters.rowsFinal(sql, "still"))
        .as("the message is whole or not at all: none of its rows")
        .containsExactlyElementsOf(Letters.expectedRows(List.of(fits), true));
    List<Map<String, String>> kept = Letters.deadLetterRows(sql, "still_dead");
    assertThat(kept).hasSize(1);
    Map<String, String> row = kept.get(0);
    assertThat(row)
        .containsEntry("raw_message", negative.data())
        .containsEntry("message_id", "9000022")
        .containsEntry("publish_time", "2026-01-14 23:00:22.123")
        .containsEntry("ordering_key", "")
        .containsEntry("subscription", "projects/p/subscriptions/logs-push")
        .containsEntry("delivery_attempt", "3")
        .containsEntry(
            "stack_trace",
            "messageId=9000022 publishTime=2026-01-14T23:00:22.123Z"
                + " subscription=projects/p/subscriptions/logs-push deliveryAttempt=3");
    assertThat(JsonValues.read(row.get("attributes")))
        .isEqualTo(JsonValues.read("{\"source\":\"sensor-1\",\"trace\":\"t-22\"}"));
    assertThat(row.get("error_message")).startsWith("row 1: column 'id' (UInt32) rejects -5");
    assertThat(Instant.parse(row.get("failed_at").replace(' ', 'T') + "Z"))
        .isAfterOrEqualTo(start.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));

    // Again, a second later (a run leaves dead letters of its own start second to the next one):
    // replaced once more, never doubled, and the target unchanged.
    Thread.sleep(1_100);
    Run again = replay("still", "still_dead");
    assertThat(again.exitCode()).as(again.toString()).isEqualTo(3);
    assertThat(Letters.deadLetterRows(sql, "still_dead")).hasSize(1);
    assertThat(sql.number("SELECT count() FROM still")).isEqualTo(1);
  }

  @Test
  void aFilterThatMatchesNothingSaysSoAndLeavesEverything() {
    Letters.createTarget(sql, "none");
    Letters.createDeadLetterTable(sql, "none_dead");
    Letters.insert(sql, "none_dead", letters(31, 3, T0));
    List<Map<String, String>> before = Letters.deadLetterRows(sql, "none_dead");

    Run run = replay("none", "none_dead", "--errorContains=no such reason", "--messageId=1,2");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains(
            "no dead letters to replay: none in "
                + database.name()
                + ".none_dead matches error containing \"no such reason\", message id in [1, 2]");
    assertThat(Letters.deadLetterRows(sql, "none_dead")).isEqualTo(before);
    assertThat(sql.number("SELECT count() FROM none")).isZero();
  }

  @Test
  void filtersTakeExactlyTheDeadLettersTheyName() {
    Letters.createTarget(sql, "filtered");
    Letters.createDeadLetterTable(sql, "filtered_dead");
    String tricky = "column 'name' rejects \"it's a \\ back\tslash\"\nnext line";
    List<Letter> letters = new ArrayList<>(letters(41, 6, T0));
    letters.set(4, letters.get(4).withError(tricky));
    Letters.insert(sql, "filtered_dead", letters);

    Run byId = replay("filtered", "filtered_dead", "--messageId=9000041", "--messageId=9000043");
    Run byTime =
        replay(
            "filtered",
            "filtered_dead",
            "--failedAfter=" + letters.get(1).failedAt(),
            "--failedBefore=" + letters.get(3).failedAt());
    Run byError = replay("filtered", "filtered_dead", "--errorContains=" + tricky);

    for (Run run : List.of(byId, byTime, byError)) {
      assertThat(run.exitCode()).as(run.toString()).isZero();
    }
    List<Letter> taken = List.of(letters.get(0), letters.get(2), letters.get(1), letters.get(4));
    assertThat(Letters.rowsFinal(sql, "filtered"))
        .containsExactlyInAnyOrderElementsOf(Letters.expectedRows(taken, true));
    assertThat(Letters.deadLetterRows(sql, "filtered_dead"))
        .extracting(row -> row.get("message_id"))
        .containsExactlyInAnyOrder("9000044", "9000046");
  }

  @Test
  void aDryRunSaysWhatWouldHappenAndWritesNothing() {
    Letters.createTarget(sql, "dry");
    Letters.createDeadLetterTable(sql, "dry_dead");
    Letter fits = Letters.letter(51, OLD_REASON, T0);
    Letter not = Letters.letter(52, OLD_REASON, T0.plusSeconds(1)).withData("{\"id\":-1}");
    Letters.insert(sql, "dry_dead", List.of(fits, not));
    List<Map<String, String>> before = Letters.deadLetterRows(sql, "dry_dead");

    Run run = replay("dry", "dry_dead", "--dryRun");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.out())
        .contains("would write 1 row: message 9000051 (failed " + fits.failedAt() + ")")
        .contains(
            "would still not fit: message 9000052 (failed "
                + not.failedAt()
                + "): column 'id' (UInt32) rejects -1")
        .contains("dry run: 2 dead letters in " + database.name() + ".dry_dead match; 1 would be")
        .contains("nothing was written");
    assertThat(Letters.deadLetterRows(sql, "dry_dead")).isEqualTo(before);
    assertThat(sql.number("SELECT count() FROM dry")).isZero();
  }

  /**
   * A dead letter whose value is the ClickHouse password: a dry run prints why it would still not
   * fit with the password masked, as a run's log lines and new dead letters do.
   */
  @Test
  void aDryRunPrintsARefusedValueThatIsThePasswordMasked() {
    Assumptions.assumeTrue(
        database.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    String password = LocalClickHouse.PIPELINE_PASSWORD;
    Letters.createTarget(sql, "leaky");
    Letters.createDeadLetterTable(sql, "leaky_dead");
    Letter leaky = Letters.letter(53, OLD_REASON, T0).withData("{\"id\":\"" + password + "\"}");
    Letters.insert(sql, "leaky_dead", List.of(leaky));
    Map<String, String> env = env("leaky", "leaky_dead");
    env.put("CLICKHOUSE_USER", LocalClickHouse.PIPELINE_USER);
    env.put("CLICKHOUSE_PASSWORD", password);

    Run run = Run.of(env, "table", "--dryRun", "--maxPerSecond=0");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.out())
        .contains("would still not fit: message 9000053 (failed " + leaky.failedAt() + ")")
        .contains("[redacted]");
    assertThat(run.out() + run.err()).doesNotContain(password);
  }

  @Test
  void copiesOfOneDeadLetterAreReplayedOnceAndAllLeave() {
    Letters.createTarget(sql, "copies");
    Letters.createDeadLetterTable(sql, "copies_dead");
    Letter letter = Letters.letter(61, OLD_REASON, T0);
    // The same dead letter written twice (a retried INSERT), and once more a minute later (a
    // redelivery after another sink failed).
    Letters.insert(sql, "copies_dead", List.of(letter, letter));
    Letters.insert(sql, "copies_dead", List.of(letter.failedAt(T0.plusSeconds(60))));

    Run run = replay("copies", "copies_dead");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("replayed 1 dead letters").contains("1 copies removed");
    assertThat(Letters.rowsFinal(sql, "copies"))
        .containsExactlyElementsOf(Letters.expectedRows(List.of(letter), true));
    assertThat(sql.number("SELECT count() FROM copies")).isEqualTo(1);
    assertThat(Letters.deadLetterRows(sql, "copies_dead")).isEmpty();
  }

  /**
   * A page reads only the rows after the one before it, and finds its dead letters' copies wherever
   * they are: with pages of two, copies two and three pages on are counted with the first to fail,
   * never read as dead letters of their own, and leave with it; also a copy whose message id only
   * its stack_trace keeps (a row written before the message_id column existed).
   */
  @Test
  void copiesOnLaterPagesAreReadWithTheFirstToFailAndNeverAgain() {
    Letters.createTarget(sql, "spread");
    Letters.createDeadLetterTable(sql, "spread_dead");
    Letter a = Letters.letter(191, OLD_REASON, T0);
    Letter b = Letters.letter(192, OLD_REASON, T0.plusSeconds(1));
    Letter c = Letters.letter(193, OLD_REASON, T0.plusSeconds(2));
    Letter d = Letters.letter(194, OLD_REASON, T0.plusSeconds(4));
    Letter e = Letters.letter(195, OLD_REASON, T0.plusSeconds(6));
    Letters.insert(
        sql,
        "spread_dead",
        List.of(
            a,
            b,
            c,
            a.failedAt(T0.plusSeconds(3)).withError("redelivered: timed out"),
            d,
            b.failedAt(T0.plusSeconds(5)),
            e,
            a.failedAt(T0.plusSeconds(7))));
    sql.query(
        "ALTER TABLE spread_dead UPDATE message_id = '' WHERE failed_at = '2026-01-15 10:00:07'"
            + " SETTINGS mutations_sync = 1");

    Run dryRun = replay("spread", "spread_dead", "--batchSize=2", "--dryRun");

    assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
    assertThat(dryRun.out())
        .isEqualTo(
            "would remove 2 copies of message 9000191 (failed 2026-01-15T10:00:00Z)\n"
                + "would write 1 row: message 9000191 (failed 2026-01-15T10:00:00Z)\n"
                + "would remove 1 copy of message 9000192 (failed 2026-01-15T10:00:01Z)\n"
                + "would write 1 row: message 9000192 (failed 2026-01-15T10:00:01Z)\n"
                + "would write 1 row: message 9000193 (failed 2026-01-15T10:00:02Z)\n"
                + "would write 1 row: message 9000194 (failed 2026-01-15T10:00:04Z)\n"
                + "would write 1 row: message 9000195 (failed 2026-01-15T10:00:06Z)\n"
                + "dry run: 5 dead letters in "
                + database.name()
                + ".spread_dead match; 5 would be written to "
                + database.name()
                + ".spread, 0 would still not fit, 3 copies would be removed; nothing was"
                + " written\n");

    Run run = replay("spread", "spread_dead", "--batchSize=2");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .isEqualTo(
            "replayed 5 dead letters from "
                + database.name()
                + ".spread_dead: 5 written to "
                + database.name()
                + ".spread, 0 still do not fit (in "
                + database.name()
                + ".spread_dead with the new reason), 3 copies removed\n");
    assertThat(Letters.rowsFinal(sql, "spread"))
        .containsExactlyInAnyOrderElementsOf(Letters.expectedRows(List.of(a, b, c, d, e), true));
    assertThat(sql.number("SELECT count() FROM spread")).as("each written once").isEqualTo(5);
    assertThat(Letters.deadLetterRows(sql, "spread_dead")).isEmpty();
  }

  /**
   * The backfill job writes to the same dead-letter table: its dead letters are rows of a source,
   * not messages (no message id), and a replay would collapse them into one another's keys.
   */
  @Test
  void aBackfillsDeadLettersAreLeftAsTheyAreAndCounted() {
    Letters.createTarget(sql, "shared");
    Letters.createDeadLetterTable(sql, "shared_dead");
    Letters.insertBackfill(sql, "shared_dead", List.of(Letters.event(141), Letters.event(142)), T0);
    List<Map<String, String>> backfill = Letters.deadLetterRows(sql, "shared_dead");
    Letter letter = Letters.letter(143, OLD_REASON, T0.plusSeconds(1));
    Letters.insert(sql, "shared_dead", List.of(letter));

    Run run = replay("shared", "shared_dead");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains(
            "replayed 1 dead letters from "
                + database.name()
                + ".shared_dead: 1 written to "
                + database.name()
                + ".shared, 0 still do not fit (in "
                + database.name()
                + ".shared_dead with the new reason), 0 copies removed; 2 dead letters of a"
                + " backfill left as they are (the backfill writes them when run again)");
    assertThat(Letters.rowsFinal(sql, "shared"))
        .containsExactlyElementsOf(Letters.expectedRows(List.of(letter), true));
    assertThat(sql.number("SELECT count() FROM shared")).isEqualTo(1);
    assertThat(Letters.deadLetterRows(sql, "shared_dead")).isEqualTo(backfill);
  }

  @Test
  void aMessageWhoseOrderingKeyReadsLikeABackfillsSourceRowIsReplayed() {
    Letters.createTarget(sql, "keyed");
    Letters.createDeadLetterTable(sql, "keyed_dead");
    Letter letter = Letters.letter(144, OLD_REASON, T0).withOrderingKey("a sourceRow=1");
    Letters.insert(sql, "keyed_dead", List.of(letter));

    Run run = replay("keyed", "keyed_dead");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(Letters.rowsFinal(sql, "keyed"))
        .containsExactlyElementsOf(Letters.expectedRows(List.of(letter), true));
    assertThat(sql.number("SELECT count() FROM keyed_dead")).isZero();
  }

  /**
   * Pub/Sub sends publish times to the microsecond, and a push stores them so; publish_time keeps
   * milliseconds (or seconds, in a table made so), stack_trace the text Pub/Sub sent.
   */
  @Test
  void thePublishTimeIsReplayedAsPubSubSentItNotAsTheColumnRoundsIt() {
    Letters.createTarget(sql, "micros");
    sql.query("ALTER TABLE micros MODIFY COLUMN _pubsub_publish_time DateTime64(6, 'UTC')");
    Letters.createDeadLetterTable(sql, "micros_dead");
    Letter letter =
        Letters.letter(151, OLD_REASON, T0)
            .publishedAt(Instant.parse("2026-01-14T23:00:00.123456Z"));
    Letters.insert(sql, "micros_dead", List.of(letter));

    Run run = replay("micros", "micros_dead");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(sql.query("SELECT toString(_pubsub_publish_time) FROM micros"))
        .isEqualTo("2026-01-14 23:00:00.123456");
  }

  @Test
  void aRowOfAMessageCorrectedByHandIsNoCopyAndIsReplayedOnItsOwn() {
    Letters.createTarget(sql, "corrected");
    Letters.createDeadLetterTable(sql, "corrected_dead");
    Letter wrong = Letters.letter(161, OLD_REASON, T0).withData("{\"id\":-1}");
    Letter right = wrong.failedAt(T0.plusSeconds(60)).withData(Letters.event(161).toString());
    Letters.insert(sql, "corrected_dead", List.of(wrong, right));

    Run run = replay("corrected", "corrected_dead");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.out())
        .contains("replayed 2 dead letters")
        .contains("1 still do not fit")
        .contains("0 copies removed");
    assertThat(Letters.rowsFinal(sql, "corrected"))
        .containsExactlyElementsOf(Letters.expectedRows(List.of(right), true));
    assertThat(Letters.deadLetterRows(sql, "corrected_dead"))
        .extracting(row -> row.get("raw_message"))
        .containsExactly("{\"id\":-1}");
  }

  @Test
  void inTheExactlyOnceLayoutAMessageReplayedAgainIsStillOnceUnderFinal() {
    Letters.createTarget(sql, "again");
    Letters.createDeadLetterTable(sql, "again_dead");
    List<Letter> letters = letters(71, 3, T0);
    Letters.insert(sql, "again_dead", letters);
    assertThat(replay("again", "again_dead").exitCode()).isZero();
    // A replay stopped after its INSERT and before its DELETE leaves the rows behind: the next one
    // writes the messages again, under the same keys.
    Letters.insert(sql, "again_dead", letters);
    assertThat(replay("again", "again_dead").exitCode()).isZero();

    assertThat(sql.number("SELECT count() FROM again")).as("written twice").isEqualTo(6);
    assertThat(sql.number("SELECT count() FROM again FINAL")).isEqualTo(3);
    assertThat(Letters.rowsFinal(sql, "again"))
        .containsExactlyInAnyOrderElementsOf(Letters.expectedRows(letters, true));
  }

  /**
   * On a deduplicating table a replay stopped between an INSERT and its DELETE is written once: a
   * run that finds the same rows reads the same pages, whose INSERTs carry the same tokens,
   * whatever an earlier run read (here a copy of a message an earlier page replayed).
   */
  @Test
  void aReplayRunAgainAfterAStopWritesNothingTwiceToADeduplicatingTable() {
    sql.query(
        "CREATE TABLE dedup (id UInt32, name String, amount Decimal(12, 2),"
            + " at DateTime64(3, 'UTC'), _pubsub_message_id String, _pubsub_row_index UInt32,"
            + " _pubsub_subscription String) ENGINE = MergeTree ORDER BY _pubsub_message_id"
            + " SETTINGS non_replicated_deduplication_window = 1000");
    Letters.createDeadLetterTable(sql, "dedup_dead");
    Letter a = Letters.letter(171, OLD_REASON, T0);
    Letter b = Letters.letter(172, OLD_REASON, T0.plusSeconds(1));
    Letter c = Letters.letter(173, OLD_REASON, T0.plusSeconds(3));
    Letters.insert(sql, "dedup_dead", List.of(a, b, a.failedAt(T0.plusSeconds(2)), c));
    // Stopped after its first page ...
    assertThat(replay("dedup", "dedup_dead", "--batchSize=2", "--limit=2").exitCode()).isZero();
    sql.query("CREATE TABLE dedup_left AS dedup_dead");
    sql.query("INSERT INTO dedup_left SELECT * FROM dedup_dead");
    // ... run again, and stopped after its INSERT, before its DELETE ...
    assertThat(replay("dedup", "dedup_dead", "--batchSize=2").exitCode()).isZero();
    sql.query("INSERT INTO dedup_dead SELECT * FROM dedup_left");

    // ... and run again.
    Run run = replay("dedup", "dedup_dead", "--batchSize=2");

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(sql.query("SELECT _pubsub_message_id, count() FROM dedup GROUP BY 1 ORDER BY 1"))
        .isEqualTo("9000171\t1\n9000172\t1\n9000173\t1");
    assertThat(Letters.deadLetterRows(sql, "dedup_dead")).isEmpty();
  }

  @Test
  void theSeedsFourColumnTableReplaysWhatItsStackTraceKeeps() {
    Letters.createTarget(sql, "seeded");
    Letters.createSeedDeadLetterTable(sql, "seeded_dead");
    Letter fits = Letters.letter(81, OLD_REASON, T0);
    Letter not = Letters.letter(82, OLD_REASON, T0.plusSeconds(1)).withData("not json");
    Letters.insertSeed(sql, "seeded_dead", List.of(fits, not));

    Run run = replay("seeded", "seeded_dead");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
    assertThat(run.out())
        .contains(
            "has no column message_id, publish_time, attributes, ordering_key, subscription,"
                + " delivery_attempt");
    List<Row> expected = Letters.expectedRows(List.of(fits), false);
    assertThat(Letters.rowsFinal(sql, "seeded")).containsExactlyElementsOf(expected);
    List<Map<String, String>> kept = Letters.deadLetterRows(sql, "seeded_dead");
    assertThat(kept).hasSize(1);
    assertThat(kept.get(0))
        .containsEntry("raw_message", "not json")
        .containsEntry(
            "stack_trace",
            "messageId=9000082 publishTime=2026-01-14T23:01:22.123Z"
                + " subscription=projects/p/subscriptions/logs-push deliveryAttempt=3");
    assertThat(kept.get(0).get("error_message")).startsWith("payload is not valid JSON");
  }

  @Test
  void aLimitStopsInOrderOfFailureAndARateIsKept() {
    Letters.createTarget(sql, "limited");
    Letters.createDeadLetterTable(sql, "limited_dead");
    List<Letter> letters = letters(101, 5, T0);
    Letters.insert(sql, "limited_dead", letters);

    long start = System.nanoTime();
    Run run = replay("limited", "limited_dead", "--limit=3", "--batchSize=1", "--maxPerSecond=4");
    java.time.Duration took = java.time.Duration.ofNanos(System.nanoTime() - start);

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("replayed 3 dead letters");
    assertThat(Letters.rowsFinal(sql, "limited"))
        .containsExactlyInAnyOrderElementsOf(Letters.expectedRows(letters.subList(0, 3), true));
    assertThat(Letters.deadLetterRows(sql, "limited_dead"))
        .extracting(row -> row.get("message_id"))
        .containsExactly("9000104", "9000105");
    // Three messages at four a second: the first at once, two more a quarter second apart.
    assertThat(took).isGreaterThanOrEqualTo(java.time.Duration.ofMillis(500));
  }

  @Test
  void insertsFailingStopTheReplayWithEveryDeadLetterStillThere() throws Exception {
    Letters.createTarget(sql, "failing");
    Letters.createDeadLetterTable(sql, "failing_dead");
    Letters.insert(sql, "failing_dead", letters(91, 3, T0));
    List<Map<String, String>> before = Letters.deadLetterRows(sql, "failing_dead");
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      proxy.failInserts(FaultInjectingProxy.Fault.HTTP_503);
      Map<String, String> env = env("failing", "failing_dead");
      env.put("CLICKHOUSE_URL", proxy.url());
      env.put("MAX_RETRIES", "0");

      Run run = Run.of(env, "table");

      assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
      assertThat(run.err())
          .startsWith("replay stopped: ClickHouse did not take a batch: ")
          .contains(
              "Dead letters not replayed are still in "
                  + database.name()
                  + ".failing_dead (so far 0 written, 0 still do not fit)");
    }
    assertThat(Letters.deadLetterRows(sql, "failing_dead")).isEqualTo(before);
    assertThat(sql.number("SELECT count() FROM failing")).isZero();
  }

  @Test
  void wrongSettingsAreNamedOnOneLineBeforeAnythingIsRead() {
    Map<String, String> noDeadLetterTable = env("t", "x");
    noDeadLetterTable.remove("CLICKHOUSE_DEAD_LETTER_TABLE");
    Run missing = Run.of(noDeadLetterTable, "table");
    Run badTime = replay("t", "x", "--failedAfter=yesterday");
    Run unknown = replay("t", "x", "--nope");
    Run noCommand = Run.of(env("t", "x"));

    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err())
        .isEqualTo(
            "replay: CLICKHOUSE_DEAD_LETTER_TABLE: is required (the table to replay from)\n");
    assertThat(badTime.exitCode()).isEqualTo(2);
    assertThat(badTime.err()).contains("'yesterday' is not a time");
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err()).contains("Unknown option: '--nope'");
    assertThat(noCommand.exitCode()).isEqualTo(2);
    assertThat(noCommand.err()).contains("name a command: table or subscription");
  }

  @Test
  void aMissingDeadLetterTableIsAClearError() {
    Letters.createTarget(sql, "lonely");
    Run run = replay("lonely", "absent");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo("replay: dead-letter table " + database.name() + ".absent does not exist\n");
  }
}
