package dev.pubsubclickhouse.core.insert;

import com.clickhouse.client.api.Client;
import java.util.List;
import java.util.Map;

/** How the rows of an INSERT travel, and so how a change of column types is caught. */
public enum InsertFormat {
  /**
   * Column names and types in a header that ClickHouse checks against the table at the INSERT
   * itself, then RowBinaryWithDefaults rows: a retyped column refuses the INSERT (ClickHouse 26.6
   * and later).
   */
  TYPED("RowBinaryWithNamesAndTypesAndDefaults"),
  /**
   * RowBinaryWithDefaults rows without a header, for servers that lack the typed format: the writer
   * then reads the column types before every INSERT (a change between that read and the INSERT
   * itself is not caught; see the README).
   */
  UNTYPED("RowBinaryWithDefaults");

  private final String clickHouseName;

  InsertFormat(String clickHouseName) {
    this.clickHouseName = clickHouseName;
  }

  public String clickHouseName() {
    return clickHouseName;
  }

  /** The typed format when the server can read it, else the untyped one. */
  public static InsertFormat supportedBy(Client client) {
    List<?> rows =
        client.queryAll(
            "SELECT name FROM system.formats WHERE name = {format:String} AND is_input",
            Map.of("format", TYPED.clickHouseName));
    return rows.isEmpty() ? UNTYPED : TYPED;
  }
}
