package dev.pubsubclickhouse.messages.cdc;

/**
 * The table a change comes from, as CDC_TABLES names it: {@code schema.table} for Postgres, {@code
 * db.table} for MySQL. Case-sensitive, as both databases' quoted names are.
 *
 * @param connector Debezium's {@code source.connector}: {@code postgresql} or {@code mysql}
 */
public record SourceTable(String connector, String name) {
  @Override
  public String toString() {
    return name;
  }
}
