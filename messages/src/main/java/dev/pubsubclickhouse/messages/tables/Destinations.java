package dev.pubsubclickhouse.messages.tables;

import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.schema.SchemaSource;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableNotFoundException;
import dev.pubsubclickhouse.core.write.DeadLetterSink;
import dev.pubsubclickhouse.core.write.TableWriter;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteEvents;
import dev.pubsubclickhouse.messages.PubSubMessage;
import dev.pubsubclickhouse.messages.cdc.ChangeRouter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * Routes messages to tables. A change event (PAYLOAD_FORMAT=debezium) goes where its source table
 * is mapped ({@link ChangeRouter}). Without a table attribute every message goes to the default
 * table. With one, a message goes to the table its attribute names when that table is on the
 * allow-list, to the default table when it has no such attribute, and to the dead letters (with the
 * reason) when the name is not a table name, not allowed, or names a table that does not exist or
 * cannot be written. Each table's schema is read when a message first names it, and kept.
 * Thread-safe.
 */
public final class Destinations {
  /** How long a table found missing (or unwritable) is not looked for again. */
  static final Duration RECHECK_MISSING = Duration.ofSeconds(10);

  private final TableMapping mapping;
  private final Function<TableName, Destination> opener;
  private final Destination defaultDestination;
  private final Set<TableName> allowed;
  private final LongSupplier nanoTime;
  private final ChangeRouter changes;
  private final Map<TableName, Destination> open = new ConcurrentHashMap<>();
  private final Map<TableName, Missing> missing = new ConcurrentHashMap<>();

  private record Missing(String reason, long sinceNanos) {}

  /**
   * What the deduplication tokens of every INSERT derive from beside the messages' identities: the
   * push service and replay use the same, so that a replayed message's INSERT carries the token a
   * push of the same messages carried, and a deduplicating table drops it when it was written.
   */
  private static final String TOKEN_SOURCE = "pubsub";

  /**
   * The tables messages may go to, each with its writer (one INSERT per table per batch): the
   * default one, read already, and those the mapping allows, read when a message first names them.
   * With PAYLOAD_FORMAT=debezium, {@code changes} routes each change event, and every CDC_TABLES
   * target is read now (a missing one fails the start, which readiness retries).
   *
   * @param addsColumns the writer adds columns for new fields (SCHEMA_EVOLUTION): each table must
   *     take them
   * @param events the writer's events for a table
   * @param changes routes change events; null for routing by attribute
   * @throws IllegalArgumentException when the default table cannot be written as configured
   */
  public static Destinations open(
      TableMapping mapping,
      SchemaSource reader,
      TargetTable defaultTable,
      ClickHouseInserter inserter,
      List<DeadLetterSink> sinks,
      boolean addsColumns,
      Function<TableName, WriteEvents> events,
      ChangeRouter changes) {
    Function<TargetTable, Destination> writerFor =
        table -> {
          if (addsColumns) {
            mapping.checkEvolvable(table);
          }
          UnknownFieldsColumn.check(mapping, table);
          return new Destination(
              table,
              new TableWriter(table, inserter, sinks, events.apply(table.name()), TOKEN_SOURCE),
              changes == null ? null : changes.truncates());
        };
    Destinations destinations =
        new Destinations(
            mapping,
            name -> writerFor.apply(new TargetTable(name, reader, mapping.columnSources())),
            writerFor.apply(defaultTable),
            System::nanoTime,
            changes);
    if (changes != null) {
      for (TableName target : mapping.allowedTables()) {
        destinations.open.computeIfAbsent(target, destinations.opener);
      }
    }
    return destinations;
  }

  /**
   * @param opener reads a table's schema and builds its writer; throws {@link
   *     TableNotFoundException} for a missing table, IllegalArgumentException for a table that
   *     cannot be written, any other RuntimeException when ClickHouse does not answer
   * @param defaultDestination the default table, read already
   */
  public Destinations(
      TableMapping mapping,
      Function<TableName, Destination> opener,
      Destination defaultDestination) {
    this(mapping, opener, defaultDestination, System::nanoTime, null);
  }

  Destinations(
      TableMapping mapping,
      Function<TableName, Destination> opener,
      Destination defaultDestination,
      LongSupplier nanoTime,
      ChangeRouter changes) {
    this.mapping = mapping;
    this.changes = changes;
    this.opener = opener;
    this.defaultDestination = defaultDestination;
    this.allowed = Set.copyOf(mapping.allowedTables());
    this.nanoTime = nanoTime;
    open.put(mapping.defaultTable(), defaultDestination);
  }

  public Destination defaultDestination() {
    return defaultDestination;
  }

  public Route route(PubSubMessage message) {
    if (changes != null) {
      return changes.route(message, open::get, defaultDestination);
    }
    if (mapping.tableAttribute().isEmpty()) {
      return Route.to(defaultDestination);
    }
    String attribute = mapping.tableAttribute().get();
    String named = message.attributes().get(attribute);
    if (named == null) {
      return Route.to(defaultDestination);
    }
    TableName table;
    try {
      table = TableName.parse(named, mapping.defaultTable().database());
    } catch (IllegalArgumentException e) {
      return Route.rejected(
          defaultDestination,
          "attribute " + attribute + " does not name a table: " + e.getMessage());
    }
    if (!table.equals(mapping.defaultTable()) && !allowed.contains(table)) {
      return Route.rejected(
          defaultDestination,
          "attribute "
              + attribute
              + " names table "
              + table
              + ", which is not one of CLICKHOUSE_TABLES ("
              + allowed.stream().map(TableName::toString).sorted().collect(Collectors.joining(", "))
              + ")");
    }
    Destination destination = open.get(table);
    return destination != null ? Route.to(destination) : open(attribute, table);
  }

  private Route open(String attribute, TableName table) {
    Missing known = missing.get(table);
    if (known != null && nanoTime.getAsLong() - known.sinceNanos < RECHECK_MISSING.toNanos()) {
      return Route.rejected(defaultDestination, known.reason);
    }
    try {
      return Route.to(open.computeIfAbsent(table, opener));
    } catch (TableNotFoundException | IllegalArgumentException e) {
      String reason = "attribute " + attribute + " names a table that cannot be written: ";
      reason += e.getMessage();
      missing.put(table, new Missing(reason, nanoTime.getAsLong()));
      return Route.rejected(defaultDestination, reason);
    } catch (RuntimeException e) {
      return Route.unavailable(
          "the schema of table " + table + " could not be read: " + ClickHouseFailures.describe(e));
    }
  }
}
