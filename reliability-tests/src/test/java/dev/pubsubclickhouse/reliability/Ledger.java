package dev.pubsubclickhouse.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.testing.Sql;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A fixed set of messages with unique ids, and the account of where each one ended: the target
 * table, the dead-letter table or the push driver's dead-letter file. Every tenth message does not
 * fit the table ({@code seq} is -1 for a UInt32 column), so the dead-letter table is part of every
 * run.
 */
final class Ledger {
  static final String TARGET_COLUMNS =
      "(id String, seq UInt32, body String, _pubsub_subscription String, _pubsub_message_id String,"
          + " _pubsub_row_index UInt32, _pubsub_delivery_attempt UInt32, _ingested_at DateTime64(3))";
  static final String TARGET = TARGET_COLUMNS + " ENGINE = MergeTree ORDER BY id";

  /** The exactly-once layout of sql/logs_exactly_once.sql: one row per row published, FINAL. */
  static final String DEDUPLICATED =
      TARGET_COLUMNS
          + " ENGINE = ReplacingMergeTree(_ingested_at)"
          + " ORDER BY (_pubsub_subscription, _pubsub_message_id, _pubsub_row_index)";

  static final String ERRORS =
      "(raw_message String, error_message String, stack_trace String, failed_at DateTime)"
          + " ENGINE = MergeTree ORDER BY failed_at";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final int count;
  private final Set<String> good = new TreeSet<>();
  private final Set<String> bad = new TreeSet<>();

  Ledger(int count) {
    this.count = count;
    for (int i = 1; i <= count; i++) {
      (i % 10 == 0 ? bad : good).add(id(i));
    }
  }

  static String id(int i) {
    return String.format("m-%06d", i);
  }

  int size() {
    return count;
  }

  int badCount() {
    return bad.size();
  }

  /** Writes the messages as the driver's NDJSON input, one message's data per line. */
  Path write(Path file) throws IOException {
    List<String> lines = new ArrayList<>(count);
    for (int i = 1; i <= count; i++) {
      int seq = i % 10 == 0 ? -1 : i;
      lines.add(
          "{\"id\":\"" + id(i) + "\",\"seq\":" + seq + ",\"body\":\"" + body(i, count) + "\"}");
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  static String body(int i, int count) {
    return "message " + i + " of " + count + " with a little text to make it a realistic size";
  }

  /** Where every message ended; {@link #missing} must be empty. */
  record Account(
      long messages,
      long targetRows,
      long targetIds,
      long targetMessageIds,
      long errorRows,
      long errorIds,
      long deadLettered,
      long deduplicatedFinal,
      List<String> missing,
      List<String> goodNotInTarget,
      List<String> wrongValues,
      List<String> goodInErrors,
      List<String> badInTarget) {

    long targetDuplicates() {
      return targetRows - targetMessageIds;
    }

    long errorDuplicates() {
      return errorRows - errorIds;
    }

    @Override
    public String toString() {
      return String.format(
          "messages=%d target-rows=%d target-ids=%d duplicates=%d error-rows=%d error-ids=%d"
              + " error-duplicates=%d dead-letter-file=%d missing=%d final=%d",
          messages,
          targetRows,
          targetIds,
          targetDuplicates(),
          errorRows,
          errorIds,
          errorDuplicates(),
          deadLettered,
          missing.size(),
          deduplicatedFinal);
    }
  }

  /**
   * Counts where each message is. Also copies the target table into the exactly-once layout and
   * counts it with FINAL.
   */
  Account account(Sql sql, String target, String errors, Path deadLetterFile) throws IOException {
    Set<String> inTarget =
        lines(sql.query("SELECT DISTINCT id FROM " + target + " ORDER BY id FORMAT TSV"));
    long targetRows = sql.number("SELECT count() FROM " + target);
    long targetMessageIds = sql.number("SELECT uniqExact(_pubsub_message_id) FROM " + target);
    Set<String> inErrors =
        lines(
            sql.query(
                "SELECT DISTINCT JSONExtractString(raw_message, 'id') FROM "
                    + errors
                    + " ORDER BY 1 FORMAT TSV"));
    long errorRows = sql.number("SELECT count() FROM " + errors);
    Set<String> deadLettered = deadLetterIds(deadLetterFile);

    String copy = target + "_final";
    sql.query("DROP TABLE IF EXISTS " + copy);
    sql.query("CREATE TABLE " + copy + " " + DEDUPLICATED);
    sql.query("INSERT INTO " + copy + " SELECT * FROM " + target);
    long deduplicated = sql.number("SELECT count() FROM " + copy + " FINAL");

    List<String> missing = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      String id = id(i);
      if (!inTarget.contains(id) && !inErrors.contains(id) && !deadLettered.contains(id)) {
        missing.add(id);
      }
    }
    List<String> goodNotInTarget = good.stream().filter(id -> !inTarget.contains(id)).toList();
    List<String> wrongValues = new ArrayList<>();
    for (String row :
        lines(sql.query("SELECT DISTINCT id, seq, body FROM " + target + " FORMAT TSV"))) {
      String[] fields = row.split("\t", -1);
      int i = Integer.parseInt(fields[0].substring(2));
      if (!fields[1].equals(Integer.toString(i)) || !fields[2].equals(body(i, count))) {
        wrongValues.add(row);
      }
    }
    List<String> goodInErrors = inErrors.stream().filter(good::contains).toList();
    List<String> badInTarget = inTarget.stream().filter(bad::contains).toList();
    return new Account(
        count,
        targetRows,
        inTarget.size(),
        targetMessageIds,
        errorRows,
        inErrors.size(),
        deadLettered.size(),
        deduplicated,
        missing,
        goodNotInTarget,
        wrongValues,
        goodInErrors,
        badInTarget);
  }

  private static Set<String> lines(String text) {
    Set<String> lines = new HashSet<>();
    text.lines().filter(line -> !line.isBlank()).forEach(lines::add);
    return lines;
  }

  static Set<String> deadLetterIds(Path file) throws IOException {
    Set<String> ids = new HashSet<>();
    if (!Files.exists(file)) {
      return ids;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode entry = JSON.readTree(line);
      byte[] data = Base64.getDecoder().decode(entry.get("data").asText());
      ids.add(JSON.readTree(data).get("id").asText());
    }
    return ids;
  }
}
