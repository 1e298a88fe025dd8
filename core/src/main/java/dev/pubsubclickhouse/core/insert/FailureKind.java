package dev.pubsubclickhouse.core.insert;

/** What a failed ClickHouse request means for the rows it carried. */
public enum FailureKind {
  /** Connection, timeout, overload: nothing is known to be written; the same rows may go later. */
  TRANSIENT,
  /** The table's columns are not the ones the rows were encoded for: read them, encode again. */
  SCHEMA_CHANGED,
  /**
   * ClickHouse refuses every INSERT for a reason outside the rows (credentials, grants, a missing
   * table, a full disk): the rows are not to blame, so they wait (503) until someone fixes it.
   */
  NOT_THE_ROWS,
  /**
   * The rows are in the target table, but a materialized view on it failed: sending them again
   * would store them twice.
   */
  VIEW_FAILED,
  /**
   * Anything else, including codes nobody classified: possibly caused by one row, so a batch is
   * split until the rows that ClickHouse refuses stand alone.
   */
  REFUSED
}
