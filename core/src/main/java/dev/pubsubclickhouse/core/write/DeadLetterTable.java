package dev.pubsubclickhouse.core.write;

import com.clickhouse.client.api.Client;
import com.clickhouse.data.ClickHouseDataType;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertColumns;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableNotFoundException;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The ClickHouse dead-letter table: {@code (raw_message String, error_message String, stack_trace
 * String, failed_at DateTime)}. Its columns are checked when it is opened; other columns are
 * allowed when ClickHouse can fill them.
 */
public final class DeadLetterTable implements DeadLetterSink {
  private static final Map<String, Set<ClickHouseDataType>> REQUIRED =
      Map.of(
          "raw_message", Set.of(ClickHouseDataType.String),
          "error_message", Set.of(ClickHouseDataType.String),
          "stack_trace", Set.of(ClickHouseDataType.String),
          "failed_at", Set.of(ClickHouseDataType.DateTime, ClickHouseDataType.DateTime64));

  private final TableName table;
  private final RowEncoder encoder;
  private final InsertColumns columns;
  private final ClickHouseInserter inserter;

  private DeadLetterTable(TableName table, RowEncoder encoder, ClickHouseInserter inserter) {
    this.table = table;
    this.encoder = encoder;
    this.columns =
        new InsertColumns(
            encoder.columnNames(), encoder.columnTypes(), encoder.readsJsonAsString());
    this.inserter = inserter;
  }

  /** The DDL of a dead-letter table, for {@code CREATE_DEAD_LETTER_TABLE=true} and the docs. */
  public static String createStatement(TableName table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table.quoted()
        + " (raw_message String, error_message String, stack_trace String, failed_at DateTime)"
        + " ENGINE = MergeTree ORDER BY failed_at";
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
    for (ColumnDefinition column : schema.columns()) {
      Set<ClickHouseDataType> allowed = REQUIRED.get(column.name());
      if (allowed != null) {
        if (!allowed.contains(column.parsed().getDataType())) {
          throw new IllegalStateException(
              "dead-letter table "
                  + table
                  + ": column "
                  + column.name()
                  + " must be "
                  + (column.name().equals("failed_at") ? "DateTime" : "String")
                  + ", not "
                  + column.type());
        }
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
        table, RowEncoder.forTable(new TableSchema(table, written)), inserter);
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
  public void write(List<DeadLetter> deadLetters) throws Exception {
    RowBinaryOutput out = new RowBinaryOutput();
    for (DeadLetter deadLetter : deadLetters) {
      ObjectNode row = JsonNodeFactory.instance.objectNode();
      row.put("raw_message", rawMessage(deadLetter.payload()));
      row.put("error_message", deadLetter.reason());
      row.put("stack_trace", origin(deadLetter.origin()));
      row.put("failed_at", deadLetter.failedAt().toString());
      try {
        encoder.encode(row, out);
      } catch (RowRejectedException e) {
        throw new IllegalStateException(
            "a dead letter does not fit " + table + ": " + e.getMessage());
      }
    }
    inserter.insert(
        table,
        columns,
        out,
        DeduplicationTokens.of(
            "dead letters", deadLetters.stream().map(DeadLetter::identity).toList()));
  }

  @Override
  public String name() {
    return "dead-letter table " + table;
  }

  /** The payload as UTF-8 text, or as base64 when it is not valid UTF-8. */
  static String rawMessage(byte[] data) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(data))
          .toString();
    } catch (CharacterCodingException e) {
      return Base64.getEncoder().encodeToString(data);
    }
  }

  /** Where it came from, as {@code key=value} pairs, for the stack_trace column. */
  static String origin(Map<String, String> origin) {
    return origin.entrySet().stream()
        .map(field -> field.getKey() + "=" + field.getValue())
        .collect(Collectors.joining(" "));
  }
}
