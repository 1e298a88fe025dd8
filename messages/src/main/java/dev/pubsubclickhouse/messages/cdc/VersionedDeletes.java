package dev.pubsubclickhouse.messages.cdc;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import dev.pubsubclickhouse.core.schema.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A truncate's (or a re-snapshot's end's) lightweight DELETE of the rows written before it: in the
 * CDC_TABLES target, and in each table a materialized view on the target writes to ({@code TO}),
 * such as the latest-state table fed from a history table. A table without a {@code __version}
 * column is left alone. Each DELETE returns once ClickHouse has applied it ({@code
 * lightweight_deletes_sync = 2}), so that the message is acknowledged only then.
 */
public final class VersionedDeletes implements RowDeleter {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** The views that select from the table, whether this user may see them or not. */
  private static final String DEPENDENTS =
      "SELECT arrayJoin(arrayMap((d, t) -> concat(d, '.', t), dependencies_database,"
          + " dependencies_table)) AS view FROM system.tables WHERE database = {database:String}"
          + " AND name = {table:String}";

  /** The materialized views that select from the table, with their CREATE statements. */
  private static final String VIEWS =
      "SELECT concat(database, '.', name) AS view, create_table_query FROM system.tables"
          + " WHERE engine = 'MaterializedView' AND"
          + " has((SELECT any(arrayZip(dependencies_database, dependencies_table)) FROM"
          + " system.tables WHERE database = {database:String} AND name = {table:String}),"
          + " (database, name))";

  private static final String HAS_VERSION =
      "SELECT count() AS n FROM system.columns WHERE database = {database:String}"
          + " AND table = {table:String} AND name = '"
          + ChangeRow.VERSION
          + "'";

  /** The target of {@code CREATE MATERIALIZED VIEW v TO db.t ...}, quoted or not. */
  private static final Pattern TO =
      Pattern.compile(
          "^CREATE MATERIALIZED VIEW \\S+ TO ((?:`[^`]+`|[^\\s.(`]+)\\.(?:`[^`]+`|[^\\s(`]+))");

  private final Client client;

  public VersionedDeletes(Client client) {
    this.client = client;
  }

  @Override
  public void deleteBelow(TableName table, long version) throws Exception {
    for (TableName target : deletedFrom(table)) {
      String sql =
          "DELETE FROM "
              + target.quoted()
              + " WHERE "
              + TableName.quoteIdentifier(ChangeRow.VERSION)
              + " < "
              + Long.toUnsignedString(version)
              + " SETTINGS lightweight_deletes_sync = 2";
      client.execute(sql).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).close();
    }
  }

  /**
   * The grants this user lacks to delete from {@code table} and from the tables its views write to
   * (DeleteGrants).
   */
  List<String> missingGrants(TableName table) throws Exception {
    List<TableName> tables;
    try {
      tables = deletedFrom(table);
    } catch (IllegalStateException hidden) {
      return List.of(hidden.getMessage());
    }
    List<String> missing = new ArrayList<>();
    for (TableName target : tables) {
      if (!CheckGrant.holds(client, "ALTER DELETE", target)) {
        missing.add("GRANT ALTER DELETE ON " + target);
      }
    }
    return missing;
  }

  /** {@code table}, and the tables its views write to that have a {@code __version} column. */
  private List<TableName> deletedFrom(TableName table) {
    List<TableName> tables = new ArrayList<>(List.of(table));
    for (TableName target : viewTargets(table)) {
      if (hasVersion(target)) {
        tables.add(target);
      }
    }
    return tables;
  }

  /**
   * The tables the views on {@code table} write to.
   *
   * @throws IllegalStateException when a view is hidden from this user: system.tables shows only
   *     the tables a user has a grant on, and the rows such a view copied would be left undeleted
   */
  private List<TableName> viewTargets(TableName table) {
    Set<String> hidden = new TreeSet<>();
    for (GenericRecord view : client.queryAll(DEPENDENTS, parameters(table))) {
      hidden.add(view.getString("view"));
    }
    List<TableName> targets = new ArrayList<>();
    for (GenericRecord view : client.queryAll(VIEWS, parameters(table))) {
      hidden.remove(view.getString("view"));
      Matcher to = TO.matcher(view.getString("create_table_query"));
      if (to.find()) {
        targets.add(TableName.parse(to.group(1).replace("`", ""), table.database()));
      }
    }
    if (!hidden.isEmpty()) {
      throw new IllegalStateException(
          "the view "
              + String.join(", ", hidden)
              + " on "
              + table
              + " is hidden from this user, so the rows it copied cannot be deleted too (GRANT"
              + " SHOW TABLES on it, and ALTER DELETE on the table it writes to)");
    }
    return targets;
  }

  private boolean hasVersion(TableName table) {
    return client.queryAll(HAS_VERSION, parameters(table)).get(0).getLong("n") > 0;
  }

  private static Map<String, Object> parameters(TableName table) {
    return Map.of("database", table.database(), "table", table.table());
  }
}
