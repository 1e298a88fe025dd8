package dev.pubsubclickhouse.core.insert;

/** What a caller should do about a failed ClickHouse request. */
public enum FailureKind {
  /** Connection, timeout, overload: try again later; nothing was written. */
  TRANSIENT,
  /** The table changed under us: read the schema again, encode again, retry. */
  SCHEMA_CHANGED,
  /** ClickHouse refused the data itself: retrying the same rows cannot help. */
  BAD_DATA,
  /** Anything else (permissions, a missing table): not the data's fault and not passing. */
  FATAL
}
