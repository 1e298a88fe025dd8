package dev.pubsubclickhouse.core.insert;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.DataStreamWriter;
import com.clickhouse.client.api.insert.InsertResponse;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.data.ClickHouseFormat;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Sends one {@code INSERT INTO db.table (cols) FORMAT RowBinaryWithDefaults} per call, with the
 * configured insert settings, and retries transient failures with exponential backoff. Thread-safe.
 */
public final class ClickHouseInserter {
  private final Client client;
  private final InsertOptions options;

  public ClickHouseInserter(Client client, InsertOptions options) {
    this.client = client;
    this.options = options;
  }

  public InsertOptions options() {
    return options;
  }

  /**
   * Inserts the encoded rows.
   *
   * @param deduplicationToken the insert_deduplication_token, or null for none
   * @param readsJsonAsString true when the rows carry JSON columns as text
   * @return the number of rows ClickHouse reports written
   * @throws InsertException when the rows are not written: after the retries for a transient
   *     failure, at once for any other
   */
  public long insert(
      TableName table,
      List<String> columns,
      RowBinaryOutput rows,
      String deduplicationToken,
      boolean readsJsonAsString)
      throws InsertException, InterruptedException {
    List<String> quotedColumns = columns.stream().map(TableName::quoteIdentifier).toList();
    // Each write of the body starts from the first row. The HTTP client under client-v2 sends a
    // request again by itself after a 503 or 429; a one-shot stream would then send nothing, and
    // ClickHouse acknowledges an empty INSERT (see InsertBodyReplayTest).
    DataStreamWriter body = out -> rows.asInputStream().transferTo(out);
    long backoffMillis = options.firstBackoff().toMillis();
    for (int attempt = 1; ; attempt++) {
      InsertSettings settings = settings(deduplicationToken, readsJsonAsString);
      try (InsertResponse response =
          client
              .insert(
                  table.quoted(),
                  quotedColumns,
                  body,
                  ClickHouseFormat.RowBinaryWithDefaults,
                  settings)
              .get(options.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
        return response.getWrittenRows();
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        FailureKind kind = ClickHouseFailures.classify(e);
        if (kind != FailureKind.TRANSIENT || attempt > options.maxRetries()) {
          throw new InsertException(
              kind, ClickHouseFailures.serverCode(e), attempt, ClickHouseFailures.unwrap(e));
        }
        Thread.sleep(backoffMillis);
        backoffMillis = Math.min(backoffMillis * 2, options.maxBackoff().toMillis());
      }
    }
  }

  private InsertSettings settings(String deduplicationToken, boolean readsJsonAsString) {
    InsertSettings settings = new InsertSettings().setQueryId(UUID.randomUUID().toString());
    settings.serverSetting("max_insert_block_size", Long.toString(options.maxInsertBlockSize()));
    settings.serverSetting("insert_deduplicate", options.deduplicate() ? "1" : "0");
    settings.serverSetting("insert_distributed_sync", options.distributedSync() ? "1" : "0");
    options.quorum().ifPresent(q -> settings.serverSetting("insert_quorum", q.toString()));
    if (deduplicationToken != null) {
      settings.setDeduplicationToken(deduplicationToken);
    }
    // Explicit either way: some servers (ClickHouse 26.x among them) default async_insert to 1.
    settings.serverSetting("async_insert", options.asyncInsert() ? "1" : "0");
    if (options.asyncInsert()) {
      settings.serverSetting("wait_for_async_insert", "1");
    }
    if (readsJsonAsString) {
      settings.serverSetting("input_format_binary_read_json_as_string", "1");
    }
    for (Map.Entry<String, String> setting : options.extraSettings().entrySet()) {
      settings.serverSetting(setting.getKey(), setting.getValue());
    }
    return settings;
  }
}
