package dev.pubsubclickhouse.messages.cdc;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.client.api.query.QuerySettings;
import com.clickhouse.data.ClickHouseFormat;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.insert.FailureKind;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.messages.UnavailableException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Reads a TOASTed value an update left unchanged from the stored row that precedes the update: of
 * the same key (the target's sorting key columns but {@code __version}, which the layouts in
 * docs/cdc.md make the source's primary key), with the highest {@code __version} below the event's,
 * not deleted, read with {@code FINAL}. In the history layout that is the key's previous change; in
 * the latest-state layout it is the key's latest row, and when a later change is stored already
 * there is none below the event's, so the event is refused rather than filled from a change that
 * came after it.
 *
 * <p>When {@code __source_table} is in the sorting key (a target several source tables share, whose
 * keys can be alike), the read takes the event's own source table's row of the key, or else a row
 * stored before that column was added (it holds '').
 *
 * <p>The value is the source's only when the key's previous change was stored before this one:
 * deliver a table's changes in order (Debezium Server's ordering key) when its columns are TOASTed.
 * What a message read once is kept for a while, so that encoding it again for a changed schema
 * reads nothing. Thread-safe.
 */
public final class LatestStoredValues implements StoredValues {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int REMEMBERED = 1024;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String COLUMNS =
      "SELECT name, type, is_in_sorting_key FROM system.columns"
          + " WHERE database = {database:String} AND table = {table:String} ORDER BY position";

  private final Client client;
  private final ChangeCapture capture;
  private final Map<TableName, Layout> layouts = new ConcurrentHashMap<>();
  private final Map<String, ObjectNode> remembered =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ObjectNode> eldest) {
              return size() > REMEMBERED;
            }
          });

  public LatestStoredValues(Client client, ChangeCapture capture) {
    this.client = client;
    this.capture = capture;
  }

  /** What a point read needs of a table: its key columns with their types, and its metadata. */
  private record Layout(
      Map<String, String> key, boolean versioned, boolean deletable, boolean keyedBySource) {}

  @Override
  public ObjectNode of(ChangeEvent event, Set<String> columns)
      throws PayloadRejectedException, UnavailableException {
    TableName table = capture.tables().get(event.table().name());
    if (table == null) {
      throw new PayloadRejectedException("source table " + event.table() + " has no target");
    }
    Layout layout = layout(table);
    if (layout.key().isEmpty()) {
      throw refusal(event, columns, "table " + table + " has no sorting key to find the row by");
    }
    Map<String, Object> parameters = new LinkedHashMap<>();
    List<String> conditions = new ArrayList<>();
    for (Map.Entry<String, String> key : layout.key().entrySet()) {
      JsonNode value = event.after().get(key.getKey());
      if (value == null || value.isNull() || !value.isValueNode()) {
        throw refusal(event, columns, "the event has no value of key column " + key.getKey());
      }
      String name = "k" + parameters.size();
      conditions.add(
          TableName.quoteIdentifier(key.getKey()) + " = {" + name + ":" + key.getValue() + "}");
      parameters.put(name, value.asText());
    }
    List<String> order = new ArrayList<>();
    if (layout.keyedBySource()) {
      // A row stored before the column was added holds '': the only row of its key then.
      String source = TableName.quoteIdentifier(ChangeRow.SOURCE_TABLE);
      conditions.add(source + " IN ({s:String}, '')");
      order.add(source + " = {s:String} DESC");
      parameters.put("s", event.table().name());
    }
    if (layout.versioned()) {
      // At its own version: a change delivered again finds the row its first delivery wrote.
      conditions.add(TableName.quoteIdentifier(ChangeRow.VERSION) + " <= {v:UInt64}");
      order.add(TableName.quoteIdentifier(ChangeRow.VERSION) + " DESC");
      parameters.put("v", Long.toUnsignedString(event.version()));
    }
    if (layout.deletable()) {
      conditions.add(TableName.quoteIdentifier(ChangeRow.IS_DELETED) + " = 0");
    }
    String query =
        "SELECT "
            + columns.stream().map(TableName::quoteIdentifier).collect(Collectors.joining(", "))
            + " FROM "
            + table.quoted()
            + " FINAL WHERE "
            + String.join(" AND ", conditions)
            + (order.isEmpty() ? "" : " ORDER BY " + String.join(", ", order))
            + " LIMIT 1";
    String memo = table + "\n" + event.version() + "\n" + parameters + "\n" + columns;
    ObjectNode known = remembered.get(memo);
    if (known != null) {
      return known;
    }
    ObjectNode row = read(query, parameters, table);
    if (row == null) {
      throw refusal(
          event,
          columns,
          "no row of its key at or below its version is stored in "
              + table
              + (layout.keyedBySource() ? " for " + event.table().name() : "")
              + " (its earlier change not written yet, or deleted)");
    }
    remembered.put(memo, row);
    return row;
  }

  private ObjectNode read(String query, Map<String, Object> parameters, TableName table)
      throws UnavailableException, PayloadRejectedException {
    QuerySettings settings =
        new QuerySettings()
            .setFormat(ClickHouseFormat.JSONEachRow)
            // The key's previous change may have been stored through another replica a moment ago.
            .serverSetting("select_sequential_consistency", "1")
            .serverSetting("output_format_json_quote_decimals", "1")
            .serverSetting("output_format_json_quote_64bit_integers", "1")
            .serverSetting("output_format_json_quote_denormals", "1");
    try (QueryResponse response =
            client.query(query, parameters, settings).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        InputStream in = response.getInputStream()) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      if (text.isEmpty()) {
        return null;
      }
      return (ObjectNode) JSON.readTree(text);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UnavailableException("interrupted while reading a stored row of " + table, e);
    } catch (Exception e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      String reason =
          "the stored row of "
              + table
              + " could not be read: "
              + ClickHouseFailures.describe(cause);
      if (ClickHouseFailures.classify(cause) == FailureKind.REFUSED) {
        throw new PayloadRejectedException(reason);
      }
      throw new UnavailableException(reason, cause);
    }
  }

  private Layout layout(TableName table) throws UnavailableException {
    Layout known = layouts.get(table);
    if (known != null) {
      return known;
    }
    Map<String, String> key = new LinkedHashMap<>();
    boolean versioned = false;
    boolean deletable = false;
    boolean keyedBySource = false;
    try {
      for (GenericRecord column :
          client.queryAll(COLUMNS, Map.of("database", table.database(), "table", table.table()))) {
        String name = column.getString("name");
        versioned |= name.equals(ChangeRow.VERSION);
        deletable |= name.equals(ChangeRow.IS_DELETED);
        boolean sorting = column.getInteger("is_in_sorting_key") != 0;
        keyedBySource |= sorting && name.equals(ChangeRow.SOURCE_TABLE);
        if (sorting && !ChangeRow.METADATA_COLUMNS.contains(name)) {
          key.put(name, column.getString("type"));
        }
      }
    } catch (RuntimeException e) {
      throw new UnavailableException(
          "the columns of " + table + " could not be read: " + ClickHouseFailures.describe(e), e);
    }
    Layout layout = new Layout(key, versioned, deletable, keyedBySource);
    if (!key.isEmpty()) {
      layouts.put(table, layout);
    }
    return layout;
  }

  private static PayloadRejectedException refusal(
      ChangeEvent event, Set<String> columns, String why) {
    return ToastPlaceholder.refusal(
        event, columns, ", the event has no before value for it, and " + why);
  }
}
