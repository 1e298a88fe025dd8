package dev.pubsubclickhouse.core.schema;

import java.util.List;
import java.util.Optional;

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

  /**
   * The engine stores the rows an INSERT gives it: the MergeTree family (ReplacingMergeTree,
   * ReplicatedMergeTree, SharedMergeTree, ...). Only then does a materialized view that fails after
   * the table took a block leave that block stored. {@code Null}, {@code Buffer}, {@code Memory},
   * {@code URL}, a Distributed table and an engine not read are not counted: for them a failing
   * view may mean the rows are nowhere.
   */
  public boolean keepsRows() {
    return engine.endsWith("MergeTree");
  }
}
