package dev.pubsubclickhouse.messages.cdc;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.schema.TableName;

/** ClickHouse's {@code CHECK GRANT} (24.3 and later): asks, changes nothing. */
final class CheckGrant {
  private static final int SYNTAX_ERROR = 62;

  private CheckGrant() {}

  /**
   * True when {@code failure} is a server's that does not know the statement: ClickHouse before
   * 24.3 parses {@code CHECK} only as {@code CHECK TABLE} and answers SYNTAX_ERROR (62).
   */
  static boolean unknownTo(Throwable failure) {
    return ClickHouseFailures.serverCodeAmongCauses(failure) == SYNTAX_ERROR;
  }

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
