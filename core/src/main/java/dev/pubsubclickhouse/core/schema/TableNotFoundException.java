package dev.pubsubclickhouse.core.schema;

/** The configured table does not exist (or the user may not see it). */
public final class TableNotFoundException extends RuntimeException {
  public TableNotFoundException(TableName table) {
    super("table " + table + " does not exist or is not visible to this user");
  }
}
