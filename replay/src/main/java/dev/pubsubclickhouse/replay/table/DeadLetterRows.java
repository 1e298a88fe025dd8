package dev.pubsubclickhouse.replay.table;

import static dev.pubsubclickhouse.core.write.DeadLetterTable.ATTRIBUTES;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.DELIVERY_ATTEMPT;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.ERROR_MESSAGE;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.FAILED_AT;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.MESSAGE_ID;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.ORDERING_KEY;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.PUBLISH_TIME;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.RAW_MESSAGE;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.RAW_MESSAGE_ENCODING;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.STACK_TRACE;
import static dev.pubsubclickhouse.core.write.DeadLetterTable.SUBSCRIPTION;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.DefaultKind;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableNotFoundException;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.core.write.DeadLetter;
import dev.pubsubclickhouse.replay.DeadLetterFilter;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The dead-letter table as a replay reads and empties it. Rows are read in pages in the order of
 * (failed_at, key), where the key is a hash of every column: identical rows (one dead letter
 * written twice) are read once and deleted together. Rows of one message (subscription and message
 * id) with the same raw_message and attributes are copies: read as one dead letter, the first to
 * fail, and deleted together; a row whose data or attributes were corrected is a dead letter of its
 * own. Values from the command line reach ClickHouse only as query parameters.
 *
 * <p>A table without an optional column still works: the message id, publish time, subscription and
 * delivery attempt are then read from stack_trace, where the service writes them as {@code
 * key=value} pairs; attributes and the ordering key are then unknown.
 *
 * <p>A payload that was not UTF-8 is kept as base64, marked {@code rawMessageEncoding=base64} in
 * stack_trace, and read back as its bytes. An older row kept so without the mark is read as the
 * base64 text it holds: a replay cannot tell it from a message, and it stays unless it fits.
 */
final class DeadLetterRows {
  private static final List<String> REQUIRED =
      List.of(RAW_MESSAGE, ERROR_MESSAGE, STACK_TRACE, FAILED_AT);
  private static final List<String> OPTIONAL =
      List.of(MESSAGE_ID, PUBLISH_TIME, ATTRIBUTES, ORDERING_KEY, SUBSCRIPTION, DELIVERY_ATTEMPT);
  private static final Pattern KEY = Pattern.compile("[0-9a-f]{32}");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long DELETE_WAIT_MILLIS = 60_000;

  /**
   * Keys per DELETE: each is about 35 bytes of SQL text, and a statement must stay well below
   * ClickHouse's max_query_size (262,144 bytes by default), which 10,000 keys would pass.
   */
  private static final int DELETE_CHUNK = 2_000;

  private final Client client;
  private final TableName table;
  private final Set<String> columns;
  private final String keyExpression;

  private DeadLetterRows(Client client, TableName table, Set<String> columns, String key) {
    this.client = client;
    this.table = table;
    this.columns = columns;
    this.keyExpression = key;
  }

  private static boolean written(String column) {
    return REQUIRED.contains(column) || OPTIONAL.contains(column);
  }

  /**
   * @throws IllegalStateException when the table is missing or is not a dead-letter table
   */
  static DeadLetterRows open(Client client, TableName table) {
    TableSchema schema;
    try {
      schema = new SchemaReader(client).read(table);
    } catch (TableNotFoundException e) {
      throw new IllegalStateException("dead-letter table " + table + " does not exist");
    }
    Set<String> names =
        schema.columns().stream().map(ColumnDefinition::name).collect(Collectors.toSet());
    for (String required : REQUIRED) {
      if (!names.contains(required)) {
        throw new IllegalStateException(
            "dead-letter table " + table + " has no column " + required);
      }
    }
    // The columns the service writes and every other column stored as written, so that only true
    // copies share a key. Not a column the user gave a DEFAULT (or MATERIALIZED) expression: in
    // parts older than the column ClickHouse computes it at every read, and a now() there would
    // change the key between reading a row and deleting it.
    String stored =
        schema.columns().stream()
            .filter(c -> c.defaultKind() == DefaultKind.NONE || written(c.name()))
            .map(c -> TableName.quoteIdentifier(c.name()))
            .collect(Collectors.joining(", "));
    String key = "lower(hex(sipHash128(formatRow('RowBinary', " + stored + "))))";
    return new DeadLetterRows(client, table, Set.copyOf(names), key);
  }

  TableName table() {
    return table;
  }

  /** The optional columns the table does not have: what a replay from it cannot restore. */
  List<String> missingColumns() {
    return OPTIONAL.stream().filter(name -> !columns.contains(name)).toList();
  }

  /** A row's place in a replay's order: failed_at, then key. */
  record Position(long failedAtNanos, String key) implements Comparable<Position> {
    private static final Comparator<Position> ORDER =
        Comparator.comparingLong(Position::failedAtNanos).thenComparing(Position::key);

    @Override
    public int compareTo(Position other) {
      return ORDER.compare(this, other);
    }
  }

  /**
   * Where a page ends (null: before the first row), and the copies past it of the dead letters read
   * so far, each set by its copy key with the place of its last row: a later page leaves them out,
   * as a replay deleted them with their dead letter and a dry run already counted them.
   */
  record Cursor(Position end, Map<String, Position> copiesAhead) {
    static final Cursor START = new Cursor(null, Map.of());
  }

  /** Dead letters in the order they first failed, and where the next page starts. */
  record Page(List<StoredDeadLetter> deadLetters, Cursor next) {}

  /**
   * Up to {@code limit} dead letters that pass {@code filter} and failed before {@code until},
   * after {@code after}, each with the keys of its copies that do too.
   */
  Page page(DeadLetterFilter filter, Instant until, Cursor after, int limit) {
    Map<String, Object> parameters = new HashMap<>();
    List<String> conditions = new ArrayList<>();
    conditions.add("failed_at < fromUnixTimestamp64Nano({until:Int64}, 'UTC')");
    parameters.put("until", nanos(until));
    filter
        .failedAfter()
        .ifPresent(
            t -> {
              conditions.add("failed_at >= fromUnixTimestamp64Nano({after:Int64}, 'UTC')");
              parameters.put("after", nanos(t));
            });
    filter
        .failedBefore()
        .ifPresent(
            t -> {
              conditions.add("failed_at < fromUnixTimestamp64Nano({before:Int64}, 'UTC')");
              parameters.put("before", nanos(t));
            });
    filter
        .errorContains()
        .ifPresent(
            text -> {
              conditions.add("position(error_message, {error:String}) > 0");
              parameters.put("error", QueryText.escape(text));
            });
    if (!filter.messageIds().isEmpty()) {
      conditions.add("has(splitByChar('\\n', {ids:String}), _message_id)");
      parameters.put("ids", QueryText.escape(String.join("\n", filter.messageIds())));
    }
    // Only the rows after the cursor are read: the table is ordered by failed_at, so its index
    // skips the rows before, and reading in that order stops once the page is full.
    String notBefore = "";
    if (after.end() != null) {
      notBefore = "failed_at >= fromUnixTimestamp64Nano({cursor_ns:Int64}, 'UTC')";
      conditions.add(notBefore);
      conditions.add("(_failed_ns, _key) > ({cursor_ns:Int64}, {cursor_key:String})");
      parameters.put("cursor_ns", after.end().failedAtNanos());
      parameters.put("cursor_key", after.end().key());
    }
    String where = String.join(" AND ", conditions);
    // A dead letter is the first of its copies, whichever page they are in, and carries their keys:
    // a page is then the same for every run that finds the same rows (the same INSERT tokens), and
    // no copy is read again after its dead letter was settled. The first row of each set of copies
    // after the cursor, as many more as there are sets of copies ahead to leave out.
    String firstOfEachCopy =
        "SELECT "
            + columns()
            + " FROM "
            + table.quoted()
            + " WHERE "
            + where
            + " ORDER BY _failed_ns, _key LIMIT 1 BY _copy LIMIT "
            + (limit + after.copiesAhead().size());
    List<GenericRecord> firsts =
        client.queryAll(firstOfEachCopy, parameters).stream()
            .filter(row -> !after.copiesAhead().containsKey(row.getString("_copy")))
            .limit(limit)
            .toList();
    if (firsts.isEmpty()) {
      return new Page(List.of(), after);
    }
    Map<String, List<Position>> copies =
        rowsOfTheirMessages(firstOfEachCopy, where, notBefore, parameters);
    List<StoredDeadLetter> deadLetters = new ArrayList<>(firsts.size());
    Map<String, Position> lastRows = new HashMap<>(after.copiesAhead());
    for (GenericRecord first : firsts) {
      String copy = first.getString("_copy");
      List<Position> rows = new ArrayList<>();
      rows.add(new Position(first.getLong("_failed_ns"), first.getString("_key")));
      rows.addAll(copies.getOrDefault(copy, List.of()));
      deadLetters.add(read(first, rows.stream().distinct().toList()));
      lastRows.put(copy, Collections.max(rows));
    }
    StoredDeadLetter last = deadLetters.get(deadLetters.size() - 1);
    Position end = new Position(last.failedAtNanos(), last.key());
    lastRows.values().removeIf(row -> row.compareTo(end) <= 0);
    return new Page(deadLetters, new Cursor(end, Map.copyOf(lastRows)));
  }

  /**
   * The rows that pass {@code where} of the messages of these first rows of their copies, by copy
   * key, each in the replay's order. Found by message id (copies share it; a dead letter without
   * one has no copy but identical rows, which share its key): where the table has the message_id
   * column, ClickHouse reads it alone for every row after the cursor, and the rest only for rows of
   * these messages and rows that keep their id only in stack_trace.
   */
  private Map<String, List<Position>> rowsOfTheirMessages(
      String firstOfEachCopy, String where, String notBefore, Map<String, Object> parameters) {
    String ids = "(SELECT _message_id FROM (" + firstOfEachCopy + ") WHERE _message_id != '')";
    String prewhere = "";
    if (columns.contains(MESSAGE_ID)) {
      prewhere =
          " PREWHERE "
              + (notBefore.isEmpty() ? "" : notBefore + " AND ")
              + "("
              + text(MESSAGE_ID)
              + " IN "
              + ids
              + " OR "
              + text(MESSAGE_ID)
              + " = '')";
    }
    String sql =
        "SELECT _copy, _failed_ns, _key FROM (SELECT "
            + columns()
            + " FROM "
            + table.quoted()
            + prewhere
            + " WHERE "
            + where
            + " AND _message_id IN "
            + ids
            + ") ORDER BY _failed_ns, _key";
    Map<String, List<Position>> rows = new HashMap<>();
    for (GenericRecord row : client.queryAll(sql, parameters)) {
      rows.computeIfAbsent(row.getString("_copy"), copy -> new ArrayList<>())
          .add(new Position(row.getLong("_failed_ns"), row.getString("_key")));
    }
    return rows;
  }

  /**
   * What a page reads of each row: its key, where it is in the replay's order, the message, and
   * {@code _copy}, the key its copies share (its own key when it has no message id).
   */
  private String columns() {
    return keyExpression
        + " AS _key, toUnixTimestamp64Nano(toDateTime64(failed_at, 9, 'UTC')) AS _failed_ns,"
        + " base64Encode(raw_message) AS _raw, "
        + fromTrace(RAW_MESSAGE_ENCODING)
        + " AS _raw_encoding, error_message AS _error, "
        + orFromTrace(MESSAGE_ID, DeadLetter.MESSAGE_ID)
        + " AS _message_id, "
        + (columns.contains(PUBLISH_TIME)
            ? "ifNull(toString(toUnixTimestamp64Nano(toDateTime64(publish_time, 9, 'UTC'))), '')"
            : "''")
        + " AS _publish_ns, "
        + fromTrace(DeadLetter.PUBLISH_TIME)
        + " AS _publish_text, "
        + (columns.contains(ATTRIBUTES) ? "toJSONString(attributes)" : "'{}'")
        + " AS _attributes, "
        + (columns.contains(ORDERING_KEY) ? text(ORDERING_KEY) : "''")
        + " AS _ordering_key, "
        + orFromTrace(SUBSCRIPTION, DeadLetter.SUBSCRIPTION)
        + " AS _subscription, "
        + orFromTrace(DELIVERY_ATTEMPT, DeadLetter.DELIVERY_ATTEMPT)
        + " AS _delivery_attempt, "
        + fromTrace(DeadLetter.SOURCE_ROW)
        + " AS _source_row, if(_message_id = '', _key, lower(hex(sipHash128(_subscription,"
        + " _message_id, raw_message, _attributes)))) AS _copy";
  }

  /**
   * Deletes these rows and every row with one of their keys, a DELETE per {@link #DELETE_CHUNK}
   * rows, and returns once none is left.
   *
   * @throws IllegalStateException when rows are still there after a minute
   */
  void delete(Collection<Position> rows) throws InterruptedException {
    List<Position> all = rows.stream().sorted().toList();
    for (int from = 0; from < all.size(); from += DELETE_CHUNK) {
      deleteChunk(all.subList(from, Math.min(all.size(), from + DELETE_CHUNK)));
    }
  }

  /**
   * Deletes {@code rows}, given in the replay's order: the first and last bound their failed_at.
   */
  private void deleteChunk(List<Position> rows) throws InterruptedException {
    for (Position row : rows) {
      if (!KEY.matcher(row.key()).matches()) {
        throw new IllegalArgumentException("not a row key: " + row.key());
      }
    }
    // Keys are hex digits this class read from ClickHouse, checked above: safe in SQL text, and a
    // long list does not fit in the URL that carries query parameters. A key covers failed_at, so
    // every row with one of these keys is in their failed_at range: the DELETE hashes only the rows
    // in it, and the count after it reads only those (the table is ordered by failed_at), not every
    // row of the table.
    String in = rows.stream().map(row -> "'" + row.key() + "'").collect(Collectors.joining(","));
    String where =
        " WHERE failed_at BETWEEN fromUnixTimestamp64Nano("
            + rows.get(0).failedAtNanos()
            + ", 'UTC') AND fromUnixTimestamp64Nano("
            + rows.get(rows.size() - 1).failedAtNanos()
            + ", 'UTC') AND "
            + keyExpression
            + " IN ("
            + in
            + ")";
    try {
      client.execute("DELETE FROM " + table.quoted() + where).get().close();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    // A lightweight DELETE may return before it applies (lightweight_deletes_sync=0): the rows
    // must be gone before the replay goes on, or a later page could read them again.
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DELETE_WAIT_MILLIS);
    while (true) {
      long left =
          client
              .queryAll("SELECT count() AS left FROM " + table.quoted() + where)
              .get(0)
              .getLong("left");
      if (left == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            left + " replayed rows are still in " + table + " a minute after their DELETE");
      }
      Thread.sleep(200);
    }
  }

  private StoredDeadLetter read(GenericRecord row, List<Position> rows) {
    return StoredDeadLetter.builder()
        .key(row.getString("_key"))
        .rows(rows)
        .failedAtNanos(row.getLong("_failed_ns"))
        .data(data(row.getString("_raw"), row.getString("_raw_encoding")))
        .errorMessage(row.getString("_error"))
        .messageId(known(row.getString("_message_id")))
        .publishTime(publishTime(row.getString("_publish_ns"), row.getString("_publish_text")))
        .attributes(attributes(row.getString("_attributes")))
        .orderingKey(row.getString("_ordering_key"))
        .subscription(known(row.getString("_subscription")))
        .deliveryAttempt(deliveryAttempt(known(row.getString("_delivery_attempt"))))
        .sourceRow(row.getString("_source_row"))
        .build();
  }

  /** The payload's bytes: raw_message's, or what its base64 holds when it is marked so. */
  private static byte[] data(String raw, String encoding) {
    byte[] stored = Base64.getDecoder().decode(raw);
    if (!encoding.equals("base64")) {
      return stored;
    }
    try {
      return Base64.getDecoder().decode(stored);
    } catch (IllegalArgumentException edited) {
      // Not base64 after all (edited by hand): replayed as it is, and stays unless it fits.
      return stored;
    }
  }

  /** A text column, NULL read as empty. */
  private static String text(String column) {
    return "ifNull(toString(" + TableName.quoteIdentifier(column) + "), '')";
  }

  /** The column where the table has it and it is set, else the value stack_trace names. */
  private String orFromTrace(String column, String originKey) {
    if (!columns.contains(column)) {
      return fromTrace(originKey);
    }
    return "if(" + text(column) + " = '', " + fromTrace(originKey) + ", " + text(column) + ")";
  }

  /** The value of {@code key=value} in stack_trace, or empty. */
  private static String fromTrace(String originKey) {
    return "extract(stack_trace, '(?:^| )" + originKey + "=(\\\\S*)')";
  }

  /** Dead letters written before absent values were left out say "null". */
  private static String known(String value) {
    return value == null || value.equals("null") ? "" : value;
  }

  /**
   * The publish time as Pub/Sub sent it, which stack_trace keeps (a push stores that text, to the
   * microsecond); the publish_time column, which may be coarser, only when stack_trace has none.
   */
  private static String publishTime(String nanos, String text) {
    String sent = known(text);
    if (nanos.isEmpty() || isInstant(sent)) {
      return sent.isEmpty() ? null : sent;
    }
    return Instant.ofEpochSecond(0, Long.parseLong(nanos)).toString();
  }

  private static boolean isInstant(String text) {
    try {
      Instant.parse(text);
      return true;
    } catch (DateTimeParseException notOne) {
      return false;
    }
  }

  private static Integer deliveryAttempt(String text) {
    try {
      return text.isEmpty() ? null : Integer.valueOf(text);
    } catch (NumberFormatException notOne) {
      return null;
    }
  }

  private static Map<String, String> attributes(String json) {
    Map<String, String> attributes = new LinkedHashMap<>();
    try {
      JsonNode object = JSON.readTree(json);
      object.fields().forEachRemaining(e -> attributes.put(e.getKey(), e.getValue().asText()));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("attributes that are not a JSON object: " + e.getMessage());
    }
    return attributes;
  }

  private static long nanos(Instant instant) {
    return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
  }
}
