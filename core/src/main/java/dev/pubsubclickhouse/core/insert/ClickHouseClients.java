package dev.pubsubclickhouse.core.insert;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import java.time.temporal.ChronoUnit;

/** Builds the one shared client-v2 {@link Client} of a process. */
public final class ClickHouseClients {
  private ClickHouseClients() {}

  /**
   * @param clientName shows as client_name in system.query_log
   * @param maxConnections the pool size; fit it to the number of concurrent requests
   */
  public static Client open(ClickHouseConfig config, String clientName, int maxConnections) {
    Client.Builder builder = new Client.Builder();
    // client-v2 then trusts this CA alone, and still checks the host name (SSL mode STRICT).
    config.caCertificate().ifPresent(path -> builder.setRootCertificate(path.toString()));
    return builder
        .addEndpoint(config.url().toString())
        .setUsername(config.user())
        .setPassword(config.password().reveal())
        .setDefaultDatabase(config.table().database())
        .setClientName(clientName)
        .compressClientRequest(true)
        .setMaxConnections(maxConnections)
        .setMaxRetries(0)
        .setConnectTimeout(5, ChronoUnit.SECONDS)
        .setSocketTimeout(config.insertOptions().timeout().toMillis(), ChronoUnit.MILLIS)
        .build();
  }
}
