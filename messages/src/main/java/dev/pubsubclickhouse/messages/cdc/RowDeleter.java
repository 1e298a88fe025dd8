package dev.pubsubclickhouse.messages.cdc;

import dev.pubsubclickhouse.core.schema.TableName;

/** Deletes a table's rows below a version: what a truncate or a re-snapshot's end asks for. */
@FunctionalInterface
public interface RowDeleter {
  /**
   * Deletes the rows of {@code table} whose {@code __version} is below {@code version} (unsigned),
   * and returns once ClickHouse has.
   *
   * @throws Exception when ClickHouse did not do it; the message is then answered 503
   */
  void deleteBelow(TableName table, long version) throws Exception;
}
