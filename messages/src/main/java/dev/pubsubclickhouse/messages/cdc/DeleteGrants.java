package dev.pubsubclickhouse.messages.cdc;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.ArrayList;
import java.util.List;

/**
 * What the ClickHouse user lacks to apply truncates and snapshot ends, which delete the rows below
 * their version: {@code ALTER DELETE} on each CDC_TABLES target that only one source table writes
 * (a shared target is never deleted from) and on each table a view on it writes to, and a grant
 * that shows the user those views. Asked with {@code CHECK GRANT}, which changes nothing.
 */
public final class DeleteGrants {
  private DeleteGrants() {}

  /**
   * Each missing grant as the statement or the reason to give the user; empty when nothing is
   * missing.
   *
   * @throws Exception when the server cannot answer ({@code CHECK GRANT} is in ClickHouse 24.3 and
   *     later) or cannot be reached
   */
  public static List<String> missing(Client client, ChangeCapture capture) throws Exception {
    VersionedDeletes deletes = new VersionedDeletes(client);
    List<String> missing = new ArrayList<>();
    for (TableName target : capture.targets()) {
      if (capture.sourcesOf(target).size() == 1) {
        missing.addAll(deletes.missingGrants(target));
      }
    }
    return missing;
  }
}
