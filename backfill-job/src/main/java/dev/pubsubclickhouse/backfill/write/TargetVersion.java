package dev.pubsubclickhouse.backfill.write;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import dev.pubsubclickhouse.core.schema.TableName;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The target table's definition as a short hash of its {@code CREATE TABLE}: its columns and their
 * types, defaults, constraints, engine and settings. Rows the table refused are worth another try
 * once it differs from the one that refused them.
 */
public final class TargetVersion {
  private static final String QUERY =
      "SELECT create_table_query FROM system.tables"
          + " WHERE database = {database:String} AND name = {table:String}";

  private TargetVersion() {}

  /** The hash, or "" when the table is not visible. */
  public static String of(Client client, TableName table) {
    List<GenericRecord> rows =
        client.queryAll(QUERY, Map.of("database", table.database(), "table", table.table()));
    if (rows.isEmpty()) {
      return "";
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(rows.get(0).getString("create_table_query").getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
