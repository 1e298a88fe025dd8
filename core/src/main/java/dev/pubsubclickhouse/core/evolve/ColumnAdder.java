package dev.pubsubclickhouse.core.evolve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.write.TargetTable;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;

/**
 * Adds a column for each field of a message that no column takes, before the message is encoded, so
 * that no value of a new field is lost from the first message on.
 *
 * <p>Safe when many requests and many instances see the same new field at once: within an instance
 * one request adds the column and the others wait for it; across instances {@code ADD COLUMN IF NOT
 * EXISTS} makes every ALTER after the first a no-op, and each instance then reads the table again
 * and encodes for the column as it is, whichever instance's type won. A column's type is never
 * changed. Bounded: plain names only, none the service fills itself, at most {@link
 * EvolutionPolicy#maxNewColumns()} per table per period per instance, none once the table has
 * {@link EvolutionPolicy#maxTableColumns()}.
 *
 * <p>Thread-safe.
 */
public final class ColumnAdder {
  /** Runs one DDL statement on ClickHouse; throws what the client throws. */
  @FunctionalInterface
  public interface Ddl {
    void run(String sql) throws Exception;
  }

  /** How long an ALTER whose column ClickHouse refused is not tried again. */
  static final Duration REFUSAL_COOLDOWN = Duration.ofMinutes(1);

  /**
   * While a table's budget is spent or it is full, it is read again at most this often (for a
   * column another instance added), and a field declined for either is looked at again after it.
   */
  static final Duration REREAD_WHILE_SPENT = Duration.ofSeconds(30);

  /** ClickHouse's DUPLICATE_COLUMN: the column the ALTER would add is there. */
  private static final int DUPLICATE_COLUMN = 15;

  /**
   * What ClickHouse answers when it refuses the column itself, i.e. its type (the name is checked
   * before, and quoted): only these decline a field. The type comes from {@link ColumnTypes} or
   * SCHEMA_EVOLUTION_FALLBACK_TYPE, so these are a configured type the server will not take, and
   * trying again does not change that. Each was seen from ClickHouse 26.7 for such an ALTER.
   */
  private static final Map<Integer, String> COLUMN_REFUSAL_CODES =
      Map.ofEntries(
          Map.entry(36, "BAD_ARGUMENTS: e.g. DateTime with an unknown time zone"),
          Map.entry(43, "ILLEGAL_TYPE_OF_ARGUMENT: e.g. Nullable(Array(String))"),
          Map.entry(44, "ILLEGAL_COLUMN: e.g. a type a setting disables (Nullable(Tuple(…)))"),
          Map.entry(50, "UNKNOWN_TYPE"),
          Map.entry(62, "SYNTAX_ERROR: the type does not parse"),
          Map.entry(63, "UNKNOWN_AGGREGATE_FUNCTION: in an AggregateFunction type"),
          Map.entry(69, "ARGUMENT_OUT_OF_BOUND: e.g. Decimal(100, 2)"),
          Map.entry(92, "EMPTY_DATA_PASSED: e.g. Enum8()"),
          Map.entry(223, "UNEXPECTED_AST_STRUCTURE: e.g. FixedString(0)"),
          Map.entry(370, "DATA_TYPE_CANNOT_BE_USED_IN_TABLES: e.g. Nothing"),
          Map.entry(455, "SUSPICIOUS_TYPE_FOR_LOW_CARDINALITY"));

  /** Declined fields remembered per table; past this the memory starts over. */
  private static final int MAX_REMEMBERED = 1000;

  private final EvolutionPolicy policy;
  private final Set<String> serviceColumns;
  private final Ddl ddl;
  private final EvolutionEvents events;
  private final LongSupplier nanoTime;
  private final Map<TableName, TableState> tables = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Void>> inFlight = new ConcurrentHashMap<>();

  /**
   * @param serviceColumns the columns the service fills itself (its metadata columns, the
   *     unknown-fields column): no field becomes one, since the service would overwrite its value
   *     or fill the column with something of another type
   */
  public ColumnAdder(
      EvolutionPolicy policy, Set<String> serviceColumns, Ddl ddl, EvolutionEvents events) {
    this(policy, serviceColumns, ddl, events, System::nanoTime);
  }

  ColumnAdder(
      EvolutionPolicy policy,
      Set<String> serviceColumns,
      Ddl ddl,
      EvolutionEvents events,
      LongSupplier nanoTime) {
    this.policy = policy;
    this.serviceColumns = Set.copyOf(serviceColumns);
    this.ddl = ddl;
    this.events = events;
    this.nanoTime = nanoTime;
  }

  /** One table's budget of new columns and the fields it declined. */
  private static final class TableState {
    long windowStart;
    int addedInWindow;
    long lastReadWhileSpent = Long.MIN_VALUE;
    final Map<String, Declined> declined = new ConcurrentHashMap<>();
  }

  /** A declined field; {@code forever} for a name that can never be a column. */
  private record Declined(String reason, long untilNanos, boolean forever) {}

  /**
   * The table's schema once every new field of {@code rows} that may have a column has one. A field
   * whose values are all null waits for a value (a Nullable column would hold nothing else). Fields
   * declined (name, limits, a column type ClickHouse refuses) are reported once and left without a
   * column.
   *
   * @throws ColumnsUnavailableException when ClickHouse does not answer or fails the ALTER for any
   *     other reason than refusing the column: the message should be retried later, not written
   *     without the field
   */
  public TargetTable.Snapshot columnsFor(TargetTable table, List<? extends JsonNode> rows)
      throws ColumnsUnavailableException, InterruptedException {
    TargetTable.Snapshot schema = table.current();
    Map<String, JsonNode> fresh = newFields(schema, rows);
    if (fresh.isEmpty()) {
      return schema;
    }
    TableState state = tables.computeIfAbsent(table.name(), name -> new TableState());
    for (Map.Entry<String, JsonNode> field : fresh.entrySet()) {
      if (!isDeclined(state, field.getKey())) {
        awaitColumn(table, state, field.getKey(), field.getValue());
      }
    }
    return table.current();
  }

  /**
   * Each field no column takes, with its first non-null value, in the order first seen. A field
   * named like a column mapped to another source (COLUMN_MAPPING) is not new: its column is there.
   */
  private static Map<String, JsonNode> newFields(
      TargetTable.Snapshot schema, List<? extends JsonNode> rows) {
    Map<String, JsonNode> fresh = Map.of();
    for (JsonNode row : rows) {
      for (String name : schema.encoder().unplacedFields(row)) {
        JsonNode value = row.get(name);
        if (value.isNull() || fresh.containsKey(name) || schema.columns().contains(name)) {
          continue;
        }
        if (fresh.isEmpty()) {
          fresh = new LinkedHashMap<>();
        }
        fresh.put(name, value);
      }
    }
    return fresh;
  }

  private boolean isDeclined(TableState state, String field) {
    Declined declined = state.declined.get(field);
    if (declined == null) {
      return false;
    }
    if (declined.forever || nanoTime.getAsLong() - declined.untilNanos < 0) {
      return true;
    }
    state.declined.remove(field, declined);
    return false;
  }

  /** Adds the column, or waits for the request of this instance that is adding it. */
  private void awaitColumn(TargetTable table, TableState state, String field, JsonNode value)
      throws ColumnsUnavailableException, InterruptedException {
    String key = table.name() + "\n" + field;
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> theirs = inFlight.putIfAbsent(key, mine);
    if (theirs != null) {
      try {
        theirs.get();
      } catch (ExecutionException e) {
        throw unavailable(field, e.getCause());
      }
      return;
    }
    try {
      add(table, state, field, value);
      mine.complete(null);
    } catch (ColumnsUnavailableException | RuntimeException e) {
      mine.completeExceptionally(e);
      throw e;
    } catch (InterruptedException e) {
      mine.completeExceptionally(e);
      throw e;
    } finally {
      inFlight.remove(key, mine);
    }
  }

  private void add(TargetTable table, TableState state, String field, JsonNode value)
      throws ColumnsUnavailableException, InterruptedException {
    String refusal =
        serviceColumns.contains(field)
            ? "the service fills column " + field + " itself"
            : ColumnTypes.nameRefusal(field);
    if (refusal != null) {
      decline(table, state, field, refusal, Long.MAX_VALUE);
      return;
    }
    // Once the budget is spent or the table is full, a flood of new names reads the table at most
    // every REREAD_WHILE_SPENT (for a column another instance added), not once per name.
    long wait = budgetWait(state);
    boolean looksFull = table.current().definitions().size() >= policy.maxTableColumns();
    if ((wait > 0 || looksFull)
        && !mayReadWhileSpent(state)
        && (declinedAsFull(table, state, field, table.current())
            || declinedOverBudget(table, state, field, wait))) {
      return;
    }
    TargetTable.Snapshot schema = refreshed(table, field);
    String inferred = ColumnTypes.inferred(value, policy.fallbackType());
    Optional<ColumnDefinition> existing = column(schema, field);
    if (existing.isPresent()) {
      // Another instance added it since this one read the table.
      if (!existing.get().defaultKind().insertable()) {
        decline(table, state, field, "the table computes column " + field, Long.MAX_VALUE);
      } else if (!existing.get().type().equals(inferred)) {
        events.columnTypeDiffers(table.name(), field, inferred, existing.get().type());
      }
      return;
    }
    if (declinedAsFull(table, state, field, schema)
        || declinedOverBudget(table, state, field, takeBudget(state))) {
      return;
    }
    try {
      ddl.run(alterStatement(table.name(), field, inferred));
    } catch (InterruptedException e) {
      giveBackBudget(state);
      throw e;
    } catch (Exception e) {
      giveBackBudget(state);
      int code = ClickHouseFailures.serverCode(e);
      // DUPLICATE_COLUMN is not expected with IF NOT EXISTS, but it says the column is there:
      // it is read below like one this ALTER added.
      if (code != DUPLICATE_COLUMN) {
        if (!COLUMN_REFUSAL_CODES.containsKey(code)) {
          // Anything else (an outage, a missing grant, a full disk, a deadlock avoided, an engine
          // that cannot ALTER) says nothing against this column, and writing the message without
          // the field would lose its value: the message waits (503), Pub/Sub delivers it again.
          throw unavailable(field, e);
        }
        decline(
            table,
            state,
            field,
            "ClickHouse refused to add it: " + ClickHouseFailures.describe(e),
            REFUSAL_COOLDOWN.toNanos());
        return;
      }
    }
    Optional<ColumnDefinition> added = column(refreshed(table, field), field);
    if (added.isEmpty()) {
      throw unavailable(
          field, new IllegalStateException("the column is not in the table after the ALTER"));
    }
    if (added.get().type().equals(inferred)) {
      events.columnAdded(table.name(), field, inferred);
    } else {
      events.columnTypeDiffers(table.name(), field, inferred, added.get().type());
    }
  }

  /** {@code ALTER TABLE … [ON CLUSTER …] ADD COLUMN IF NOT EXISTS `field` type}. */
  String alterStatement(TableName table, String field, String type) {
    return "ALTER TABLE "
        + table.quoted()
        + policy.cluster().map(c -> " ON CLUSTER " + TableName.quoteIdentifier(c)).orElse("")
        + " ADD COLUMN IF NOT EXISTS "
        + TableName.quoteIdentifier(field)
        + " "
        + type;
  }

  private static TargetTable.Snapshot refreshed(TargetTable table, String field)
      throws ColumnsUnavailableException {
    try {
      return table.refresh();
    } catch (RuntimeException e) {
      throw unavailable(field, e);
    }
  }

  private static Optional<ColumnDefinition> column(TargetTable.Snapshot schema, String name) {
    return schema.definitions().stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /** Declines the field when the table has the most columns allowed; true when it did. */
  private boolean declinedAsFull(
      TargetTable table, TableState state, String field, TargetTable.Snapshot schema) {
    if (schema.definitions().size() < policy.maxTableColumns()) {
      return false;
    }
    decline(
        table,
        state,
        field,
        "the table has "
            + schema.definitions().size()
            + " columns, the most SCHEMA_EVOLUTION_MAX_TABLE_COLUMNS allows",
        REFUSAL_COOLDOWN.toNanos());
    return true;
  }

  /**
   * Declines the field when this instance may add no column to the table for {@code budgetWait}
   * nanoseconds (0: it may now); true when it did.
   */
  private boolean declinedOverBudget(
      TargetTable table, TableState state, String field, long budgetWait) {
    if (budgetWait == 0) {
      return false;
    }
    // Looked at again before the budget renews: another instance may add the column meanwhile.
    long declinedFor = Math.min(budgetWait, REREAD_WHILE_SPENT.toNanos());
    decline(
        table,
        state,
        field,
        "more than "
            + policy.maxNewColumns()
            + " new columns in "
            + policy.period().toMinutes()
            + " minutes (SCHEMA_EVOLUTION_MAX_NEW_COLUMNS)",
        declinedFor);
    return true;
  }

  /** True at most once every {@link #REREAD_WHILE_SPENT} for a table. */
  private boolean mayReadWhileSpent(TableState state) {
    synchronized (state) {
      long now = nanoTime.getAsLong();
      if (state.lastReadWhileSpent != Long.MIN_VALUE
          && now - state.lastReadWhileSpent < REREAD_WHILE_SPENT.toNanos()) {
        return false;
      }
      state.lastReadWhileSpent = now;
      return true;
    }
  }

  /** 0 when a column may be added now, else the nanoseconds until one may. */
  private long budgetWait(TableState state) {
    synchronized (state) {
      long now = nanoTime.getAsLong();
      long period = policy.period().toNanos();
      if (state.addedInWindow == 0 || now - state.windowStart >= period) {
        state.windowStart = now;
        state.addedInWindow = 0;
      }
      return state.addedInWindow < policy.maxNewColumns()
          ? 0
          : Math.max(1, state.windowStart + period - now);
    }
  }

  /** 0 when a column may be added now (and counts it), else the nanoseconds until one may. */
  private long takeBudget(TableState state) {
    synchronized (state) {
      long wait = budgetWait(state);
      if (wait == 0) {
        state.addedInWindow++;
      }
      return wait;
    }
  }

  private static void giveBackBudget(TableState state) {
    synchronized (state) {
      state.addedInWindow = Math.max(0, state.addedInWindow - 1);
    }
  }

  /** Leaves the field without a column for {@code forNanos} (Long.MAX_VALUE: for good). */
  private void decline(
      TargetTable table, TableState state, String field, String reason, long forNanos) {
    if (state.declined.size() >= MAX_REMEMBERED) {
      state.declined.clear();
    }
    boolean forever = forNanos == Long.MAX_VALUE;
    long until = forever ? 0 : nanoTime.getAsLong() + forNanos;
    state.declined.put(field, new Declined(reason, until, forever));
    events.fieldNotAdded(table.name(), field, reason);
  }

  private static ColumnsUnavailableException unavailable(String field, Throwable cause) {
    if (cause instanceof ColumnsUnavailableException unavailable) {
      return unavailable;
    }
    return new ColumnsUnavailableException(
        "the column for new field '"
            + field
            + "' could not be added or read: "
            + ClickHouseFailures.describe(cause),
        cause);
  }
}
