package dev.pubsubclickhouse.messages.cdc;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.command.CommandSettings;
import com.clickhouse.client.api.query.QueryResponse;
import com.clickhouse.client.api.query.QuerySettings;
import com.clickhouse.data.ClickHouseFormat;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.schema.TableName;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * CDC_TRUNCATE_MARKS_TABLE: the truncate marks every instance shares, so that a change older than a
 * truncate is deleted whichever instance receives it, and after a restart. One row per truncate (or
 * re-snapshot's end), {@code ReplacingMergeTree(version) ORDER BY target}: what counts is the
 * highest version of each target, read with {@code max}, merged or not. Thread-safe.
 */
public final class TruncateMarkTable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** A constraint of the user's settings profile forbids a setting the query carries. */
  private static final int SETTING_CONSTRAINT_VIOLATION = 452;

  /** The table's engine; nothing when it does not exist. */
  private static final String ENGINE =
      "SELECT engine FROM system.tables WHERE database = {database:String}"
          + " AND name = {table:String}";

  private final Client client;
  private final TableName table;
  private final Map<String, String> writeSettings;

  private TruncateMarkTable(Client client, TableName table, Map<String, String> writeSettings) {
    this.client = client;
    this.table = table;
    this.writeSettings = writeSettings;
  }

  private TruncateMarkTable(Client client, TableName table) {
    this(client, table, Map.of());
  }

  /**
   * The SETTINGS of a mark's INSERT into a table of {@code engine}. A Replicated table's mark is a
   * quorum insert, one at a time, so that a read with sequential consistency on any replica sees it
   * (a replica that lacks it refuses the read, and the batch is answered 503); a SharedMergeTree
   * insert (ClickHouse Cloud) is one by design, and one server needs none.
   */
  static Map<String, String> writeSettings(String engine) {
    return engine.startsWith("Replicated")
        ? Map.of("insert_quorum", "auto", "insert_quorum_parallel", "0")
        : Map.of();
  }

  /**
   * The DDL the service runs when the table is missing; sql/cdc/truncate_marks.sql holds it too.
   */
  public static String createStatement(TableName table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table.quoted()
        + " (target String, version UInt64, marked_at DateTime64(3, 'UTC') DEFAULT now64(3))"
        + " ENGINE = ReplacingMergeTree(version) ORDER BY target";
  }

  /**
   * Opens the table, creating it when missing, and reads it once, so that a table the service
   * cannot use stops the start rather than the first truncate.
   *
   * @throws IllegalStateException naming the table, the variable and what is wrong
   */
  public static TruncateMarkTable open(Client client, TableName table) {
    TruncateMarkTable probe = new TruncateMarkTable(client, table);
    try {
      if (!usable(client, table)) {
        client.execute(createStatement(table)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).close();
        probe.read(table);
      }
      return new TruncateMarkTable(client, table, writeSettings(probe.engine()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while opening truncate marks table " + table);
    } catch (Exception e) {
      throw new IllegalStateException(
          "truncate marks table "
              + table
              + " (CDC_TRUNCATE_MARKS_TABLE) cannot be used: "
              + ClickHouseFailures.describe(e)
              + remedy(e));
    }
  }

  /** What to change when opening failed with {@code failure}. */
  private static String remedy(Exception failure) {
    if (ClickHouseFailures.serverCodeAmongCauses(failure) == SETTING_CONSTRAINT_VIOLATION) {
      return " (the user's settings profile must let it set select_sequential_consistency, and"
          + " insert_quorum and insert_quorum_parallel for a Replicated table:"
          + " docs/cdc.md#truncates-and-re-snapshots)";
    }
    return " (create it with sql/cdc/truncate_marks.sql and GRANT SELECT, INSERT on it, or"
        + " GRANT CREATE TABLE on it for the service to create it)";
  }

  /**
   * False when the table is missing; true when it is there and answers a read of a mark.
   *
   * @throws Exception when it is there and cannot be read (columns, grants, ClickHouse down)
   */
  public static boolean usable(Client client, TableName table) throws Exception {
    TruncateMarkTable marks = new TruncateMarkTable(client, table);
    if (marks.engine().isEmpty()) {
      return false;
    }
    marks.read(table);
    return true;
  }

  /** The table's engine, empty when it does not exist. */
  private String engine() throws Exception {
    return text(ENGINE, Map.of("database", table.database(), "table", table.table()));
  }

  /**
   * What the user lacks to keep marks in the table: {@code INSERT} on it when it exists, {@code
   * CREATE TABLE} on it when it does not (the service creates it at start); empty when it lacks
   * nothing. Asked with ClickHouse's {@code CHECK GRANT}, which changes nothing.
   *
   * @throws Exception when the server cannot answer ({@code CHECK GRANT} is in ClickHouse 24.3 and
   *     later)
   */
  public static Optional<String> missingGrant(Client client, TableName table, boolean exists)
      throws Exception {
    String privilege = exists ? "INSERT" : "CREATE TABLE";
    return CheckGrant.holds(client, privilege, table) ? Optional.empty() : Optional.of(privilege);
  }

  public TableName table() {
    return table;
  }

  /**
   * Keeps the mark: rows of {@code target} below {@code version} (unsigned) are to be deleted. An
   * INSERT ... SELECT is never queued as an async insert: it returns once the row is stored.
   */
  public void write(TableName target, long version) throws Exception {
    String sql =
        "INSERT INTO "
            + table.quoted()
            + " (target, version) SELECT {target:String}, {version:UInt64}";
    CommandSettings settings = new CommandSettings();
    writeSettings.forEach(settings::serverSetting);
    client
        .execute(
            sql,
            Map.of("target", target.toString(), "version", Long.toUnsignedString(version)),
            settings)
        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
        .close();
  }

  /** The highest mark of {@code target} (unsigned); 0 when it has none. */
  public long read(TableName target) throws Exception {
    String sql =
        "SELECT toString(max(version)) FROM " + table.quoted() + " WHERE target = {target:String}";
    return Long.parseUnsignedLong(text(sql, Map.of("target", target.toString())));
  }

  /**
   * A one-value query's answer, read with sequential consistency: behind a load balancer
   * (ClickHouse Cloud) the replica asked may not have fetched a mark another instance stored on
   * another replica a moment ago, and a mark missed is a deleted change kept.
   */
  private String text(String sql, Map<String, Object> parameters) throws Exception {
    QuerySettings settings =
        new QuerySettings()
            .setFormat(ClickHouseFormat.TabSeparated)
            .serverSetting("select_sequential_consistency", "1");
    try (QueryResponse response =
            client.query(sql, parameters, settings).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        InputStream in = response.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    }
  }
}
