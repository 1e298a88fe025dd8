package dev.pubsubclickhouse.core.schema;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The columns of one table, in table order, and its engine as {@code system.tables} names it (empty
 * when not read).
 */
public record TableSchema(TableName table, List<ColumnDefinition> columns, String engine) {
  public TableSchema {
    columns = List.copyOf(columns);
    engine = engine == null ? "" : engine;
  }

  /** A table whose engine was not read. */
  public TableSchema(TableName table, List<ColumnDefinition> columns) {
    this(table, columns, "");
  }

  public Optional<ColumnDefinition> column(String name) {
    return columns.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /**
   * A Distributed table: an INSERT into it is written on several servers, each shard on its own,
   * and can fail after some shards stored their rows.
   */
  public boolean distributed() {
    return engine.equals("Distributed");
  }

  /** The engines of the Log family, which write every block to disk as it comes. */
  private static final Set<String> LOG_ENGINES = Set.of("Log", "TinyLog", "StripeLog");

  /**
   * The engine durably stores the rows an INSERT gives it before its views run: the MergeTree
   * family (ReplacingMergeTree, ReplicatedMergeTree, SharedMergeTree, ...) and the Log family. Only
   * then does a materialized view that fails leave the block stored. {@code Null}, {@code Buffer}
   * (rows in memory until a flush), {@code Memory}, {@code URL}, a Distributed table and an engine
   * not read are not counted: for them a failing view may mean the rows are nowhere.
   */
  public boolean keepsRows() {
    return engine.endsWith("MergeTree") || LOG_ENGINES.contains(engine);
  }
}
