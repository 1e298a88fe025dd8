package dev.pubsubclickhouse.messages.cdc;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.schema.TableName;

/** ClickHouse's {@code CHECK GRANT} (24.3 and later): asks, changes nothing. */
final class CheckGrant {
  private CheckGrant() {}

  /**
   * True when this user holds {@code privilege} on {@code table}.
   *
   * @throws Exception when the server cannot answer (an older version) or cannot be reached
   */
  static boolean holds(Client client, String privilege, TableName table) throws Exception {
    return client
            .queryAll("CHECK GRANT " + privilege + " ON " + table.quoted())
            .get(0)
            .getInteger(1)
        == 1;
  }
}
