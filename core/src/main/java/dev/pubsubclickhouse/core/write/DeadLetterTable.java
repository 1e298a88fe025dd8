package dev.pubsubclickhouse.core.write;

import com.clickhouse.client.api.Client;
import com.clickhouse.data.ClickHouseColumn;
import com.clickhouse.data.ClickHouseDataType;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.encode.Utf8Bytes;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertColumns;
import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableNotFoundException;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The ClickHouse dead-letter table. Every one has {@code (raw_message String, error_message String,
 * stack_trace String, failed_at DateTime)}; the optional columns {@code message_id}, {@code
 * publish_time}, {@code attributes}, {@code ordering_key}, {@code subscription} and {@code
 * delivery_attempt} are filled when the table has them, so that a replay restores the message as
 * Pub/Sub delivered it. Its columns are checked when it is opened; other columns are allowed when
 * ClickHouse can fill them.
 */
public final class DeadLetterTable implements DeadLetterSink {
  public static final String RAW_MESSAGE = "raw_message";
  public static final String ERROR_MESSAGE = "error_message";
  public static final String STACK_TRACE = "stack_trace";
  public static final String FAILED_AT = "failed_at";
  public static final String MESSAGE_ID = "message_id";
  public static final String PUBLISH_TIME = "publish_time";
  public static final String ATTRIBUTES = "attributes";
  public static final String ORDERING_KEY = "ordering_key";
  public static final String SUBSCRIPTION = "subscription";
  public static final String DELIVERY_ATTEMPT = "delivery_attempt";

  /**
   * The stack_trace key ({@code rawMessageEncoding=base64}) of a raw_message kept as base64 because
   * the payload was not UTF-8: without it a replay could not tell the base64 text from the message.
   */
  public static final String RAW_MESSAGE_ENCODING = "rawMessageEncoding";

  private static final Map<String, Set<ClickHouseDataType>> REQUIRED =
      Map.of(
          RAW_MESSAGE, Set.of(ClickHouseDataType.String),
          ERROR_MESSAGE, Set.of(ClickHouseDataType.String),
          STACK_TRACE, Set.of(ClickHouseDataType.String),
          FAILED_AT, Set.of(ClickHouseDataType.DateTime, ClickHouseDataType.DateTime64));

  private static final Map<String, Set<ClickHouseDataType>> OPTIONAL =
      Map.of(
          MESSAGE_ID, Set.of(ClickHouseDataType.String),
          PUBLISH_TIME, Set.of(ClickHouseDataType.DateTime64, ClickHouseDataType.DateTime),
          ATTRIBUTES, Set.of(ClickHouseDataType.Map),
          ORDERING_KEY, Set.of(ClickHouseDataType.String),
          SUBSCRIPTION, Set.of(ClickHouseDataType.String),
          DELIVERY_ATTEMPT,
              Set.of(
                  ClickHouseDataType.UInt32,
                  ClickHouseDataType.UInt64,
                  ClickHouseDataType.Int32,
                  ClickHouseDataType.Int64));

  /** Optional columns a dead letter may have no value for: they must be Nullable or DEFAULT. */
  private static final Set<String> MAY_BE_ABSENT = Set.of(PUBLISH_TIME, DELIVERY_ATTEMPT);

  private final TableName table;
  private final RowEncoder encoder;
  private final InsertColumns columns;
  private final ClickHouseInserter inserter;
  private final Set<String> optionalColumns;
  private final String tokenSource;

  private DeadLetterTable(
      TableName table,
      RowEncoder encoder,
      ClickHouseInserter inserter,
      Set<String> optionalColumns,
      String tokenSource) {
    this.table = table;
    this.encoder = encoder;
    this.columns =
        new InsertColumns(
            encoder.columnNames(), encoder.columnTypes(), encoder.readsJsonAsString());
    this.inserter = inserter;
    this.optionalColumns = Set.copyOf(optionalColumns);
    this.tokenSource = tokenSource;
  }

  /**
   * The same sink with its deduplication tokens made from {@code source}: a writer that must never
   * see its dead letter dropped as a copy of an earlier one (a replay writing a message's new dead
   * letter before it deletes the old) names a source of its own.
   */
  public DeadLetterTable withTokenSource(String source) {
    return new DeadLetterTable(table, encoder, inserter, optionalColumns, source);
  }

  /**
   * The DDL of a dead-letter table with every optional column, for {@code
   * CREATE_DEAD_LETTER_TABLE=true} and the docs. The optional columns have DEFAULTs or are
   * Nullable, so a writer that knows only the four required ones can still write to it.
   */
  public static String createStatement(TableName table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table.quoted()
        + " (raw_message String, error_message String, stack_trace String, failed_at DateTime,"
        + " message_id String DEFAULT '', publish_time Nullable(DateTime64(3, 'UTC')),"
        + " attributes Map(String, String) DEFAULT map(), ordering_key String DEFAULT '',"
        + " subscription String DEFAULT '', delivery_attempt Nullable(UInt32))"
        + " ENGINE = MergeTree ORDER BY failed_at";
  }

  /**
   * The sink of the configured DEAD_LETTER_TABLE, opened as {@link #open} does (created first when
   * CREATE_DEAD_LETTER_TABLE is set); empty when none is configured.
   *
   * @throws IllegalStateException naming the table and what is wrong with it
   */
  public static Optional<DeadLetterTable> configured(
      Client client, ClickHouseConfig config, ClickHouseInserter inserter) {
    return config
        .deadLetterTable()
        .map(table -> open(client, table, config.createDeadLetterTable(), inserter));
  }

  /**
   * Checks the table (creating it first when asked) and returns a sink that writes to it.
   *
   * @throws IllegalStateException naming the table and what is wrong with it
   */
  public static DeadLetterTable open(
      Client client, TableName table, boolean createWhenMissing, ClickHouseInserter inserter) {
    SchemaReader reader = new SchemaReader(client);
    TableSchema schema;
    try {
      schema = reader.read(table);
    } catch (TableNotFoundException e) {
      if (!createWhenMissing) {
        throw new IllegalStateException(
            "dead-letter table "
                + table
                + " does not exist (create it, or set CREATE_DEAD_LETTER_TABLE=true)");
      }
      try (var created = client.execute(createStatement(table)).get()) {
        // CREATE TABLE answers nothing worth reading.
      } catch (Exception createFailure) {
        throw new IllegalStateException(
            "cannot create dead-letter table " + table + ": " + createFailure.getMessage());
      }
      schema = reader.read(table);
    }
    List<ColumnDefinition> written = new ArrayList<>();
    Set<String> optional = new HashSet<>();
    for (ColumnDefinition column : schema.columns()) {
      Set<ClickHouseDataType> required = REQUIRED.get(column.name());
      Set<ClickHouseDataType> known = OPTIONAL.get(column.name());
      if (required != null) {
        checkType(table, column, required);
        written.add(column);
      } else if (known != null && column.defaultKind().insertable()) {
        checkType(table, column, known);
        checkOptional(table, column);
        optional.add(column.name());
        written.add(column);
      } else if (!column.hasDefault() && !column.parsed().isNullable()) {
        throw new IllegalStateException(
            "dead-letter table "
                + table
                + ": column "
                + column.name()
                + " has no DEFAULT and is not Nullable, so dead letters cannot fill it");
      }
    }
    for (String name : REQUIRED.keySet()) {
      if (schema.column(name).isEmpty()) {
        throw new IllegalStateException("dead-letter table " + table + " has no column " + name);
      }
    }
    return new DeadLetterTable(
        table,
        RowEncoder.forTable(new TableSchema(table, written)),
        inserter,
        optional,
        "dead letters");
  }

  private static void checkType(
      TableName table, ColumnDefinition column, Set<ClickHouseDataType> allowed) {
    ClickHouseColumn parsed = column.parsed();
    boolean fits = allowed.contains(parsed.getDataType());
    if (fits && parsed.getDataType() == ClickHouseDataType.Map) {
      fits =
          parsed.getKeyInfo().getDataType() == ClickHouseDataType.String
              && parsed.getValueInfo().getDataType() == ClickHouseDataType.String;
    }
    if (!fits) {
      throw new IllegalStateException(
          "dead-letter table "
              + table
              + ": column "
              + column.name()
              + " must be "
              + expectedType(column.name())
              + ", not "
              + column.type());
    }
  }

  private static void checkOptional(TableName table, ColumnDefinition column) {
    if (MAY_BE_ABSENT.contains(column.name())
        && !column.parsed().isNullable()
        && !column.hasDefault()) {
      throw new IllegalStateException(
          "dead-letter table "
              + table
              + ": column "
              + column.name()
              + " must be Nullable or have a DEFAULT, since not every dead letter has one");
    }
  }

  private static String expectedType(String column) {
    return switch (column) {
      case FAILED_AT -> "DateTime";
      case PUBLISH_TIME -> "Nullable(DateTime64(3, 'UTC'))";
      case ATTRIBUTES -> "Map(String, String)";
      case DELIVERY_ATTEMPT -> "Nullable(UInt32)";
      default -> "String";
    };
  }

  public TableName table() {
    return table;
  }

  /**
   * Writes all of them in one INSERT, with a deduplication token of their identities: a dead letter
   * written once but answered 503 for another sink's failure is not written twice on a
   * deduplicating table.
   */
  @Override
  public void write(List<DeadLetter> deadLetters, WaitedFor waitedFor) throws Exception {
    RowBinaryOutput out = new RowBinaryOutput();
    for (DeadLetter deadLetter : deadLetters) {
      ObjectNode row = JsonNodeFactory.instance.objectNode();
      String text = Utf8Bytes.text(deadLetter.payload(), deadLetter.payload().length).orElse(null);
      String origin = origin(deadLetter.origin());
      if (text == null) {
        text = Base64.getEncoder().encodeToString(deadLetter.payload());
        origin = (origin.isEmpty() ? "" : origin + " ") + RAW_MESSAGE_ENCODING + "=base64";
      }
      row.put(RAW_MESSAGE, text);
      row.put(ERROR_MESSAGE, deadLetter.reason());
      row.put(STACK_TRACE, origin);
      row.put(FAILED_AT, deadLetter.failedAt().toString());
      putOptional(row, deadLetter);
      encode(row, out);
    }
    inserter.insert(
        table,
        columns,
        out,
        DeduplicationTokens.of(
            tokenSource, deadLetters.stream().map(DeadLetter::identity).toList()),
        waitedFor);
  }

  /**
   * Encodes the row, leaving out a publish time or delivery attempt its column cannot hold (a
   * publish time in the year 9999 for a DateTime): stack_trace keeps it as sent, and the dead
   * letter, like the others beside it in the INSERT, must be kept.
   */
  private void encode(ObjectNode row, RowBinaryOutput out) {
    while (true) {
      try {
        encoder.encode(row, out);
        return;
      } catch (RowRejectedException e) {
        if (e.column() == null
            || !MAY_BE_ABSENT.contains(e.column())
            || row.remove(e.column()) == null) {
          throw new IllegalStateException(
              "a dead letter does not fit " + table + ": " + e.getMessage());
        }
      }
    }
  }

  @Override
  public String name() {
    return "dead-letter table " + table;
  }

  /**
   * The optional columns the table has. A value the message lacks is left out (NULL or the column's
   * DEFAULT), and so is a publish time or delivery attempt that is not one: the dead letter must be
   * kept whatever a sender put in its metadata.
   */
  private void putOptional(ObjectNode row, DeadLetter deadLetter) {
    Map<String, String> origin = deadLetter.origin();
    putIfColumn(row, MESSAGE_ID, origin.getOrDefault(DeadLetter.MESSAGE_ID, ""));
    putIfColumn(row, PUBLISH_TIME, instant(origin.get(DeadLetter.PUBLISH_TIME)));
    putIfColumn(row, ORDERING_KEY, origin.getOrDefault(DeadLetter.ORDERING_KEY, ""));
    putIfColumn(row, SUBSCRIPTION, origin.getOrDefault(DeadLetter.SUBSCRIPTION, ""));
    if (optionalColumns.contains(DELIVERY_ATTEMPT)) {
      Long attempt = deliveryAttempt(origin.get(DeadLetter.DELIVERY_ATTEMPT));
      if (attempt != null) {
        row.put(DELIVERY_ATTEMPT, attempt);
      }
    }
    if (optionalColumns.contains(ATTRIBUTES)) {
      ObjectNode attributes = row.putObject(ATTRIBUTES);
      deadLetter.attributes().forEach(attributes::put);
    }
  }

  private void putIfColumn(ObjectNode row, String column, String value) {
    if (value != null && optionalColumns.contains(column)) {
      row.put(column, value);
    }
  }

  private static String instant(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text).toString();
    } catch (DateTimeParseException notOne) {
      return null;
    }
  }

  private static Long deliveryAttempt(String text) {
    if (text == null) {
      return null;
    }
    try {
      long attempt = Long.parseLong(text);
      return attempt >= 0 && attempt <= 0xFFFF_FFFFL ? attempt : null;
    } catch (NumberFormatException notOne) {
      return null;
    }
  }

  /** Where it came from, as {@code key=value} pairs, for the stack_trace column. */
  static String origin(Map<String, String> origin) {
    return origin.entrySet().stream()
        .map(field -> field.getKey() + "=" + field.getValue())
        .collect(Collectors.joining(" "));
  }
}
