package dev.pubsubclickhouse.core.schema;

/** How a column gets a value when an INSERT does not give one ({@code system.columns}). */
public enum DefaultKind {
  NONE,
  DEFAULT,
  MATERIALIZED,
  ALIAS,
  EPHEMERAL;

  static DefaultKind of(String systemColumnsValue) {
    return systemColumnsValue == null || systemColumnsValue.isEmpty()
        ? NONE
        : valueOf(systemColumnsValue.toUpperCase(java.util.Locale.ROOT));
  }

  /** MATERIALIZED and ALIAS columns cannot be written by an INSERT. */
  public boolean insertable() {
    return this != MATERIALIZED && this != ALIAS;
  }
}
