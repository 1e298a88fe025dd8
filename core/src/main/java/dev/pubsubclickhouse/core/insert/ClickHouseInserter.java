package dev.pubsubclickhouse.core.insert;

import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.schema.TableName;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Sends one {@code INSERT INTO db.table (cols) FORMAT <format>} per call with the configured
 * settings, and retries transient failures with exponential backoff, every attempt with the same
 * rows and the same deduplication token. Thread-safe.
 */
public final class ClickHouseInserter {
  private final ClickHouseHttp http;
  private final InsertFormat format;
  private final InsertOptions options;

  public ClickHouseInserter(ClickHouseHttp http, InsertFormat format, InsertOptions options) {
    this.http = http;
    this.format = format;
    this.options = options;
  }

  public InsertOptions options() {
    return options;
  }

  public InsertFormat format() {
    return format;
  }

  /** ClickHouse's answers to a setting it cannot take: a wrong name, value or range. */
  private static final java.util.Set<Integer> SETTING_REFUSED_CODES =
      java.util.Set.of(
          6, // CANNOT_PARSE_TEXT
          27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
          36, // BAD_ARGUMENTS
          69, // ARGUMENT_OUT_OF_BOUND
          70, // CANNOT_CONVERT_TYPE
          72, // CANNOT_PARSE_NUMBER
          115, // UNKNOWN_SETTING
          164, // READONLY: the user may not change settings
          452); // SETTING_CONSTRAINT_VIOLATION

  /**
   * Has ClickHouse parse the settings passed through once, so that a wrong name or value stops
   * start-up instead of failing every INSERT (where it would look like a refusal of the rows).
   *
   * @throws IllegalArgumentException with ClickHouse's words, when it refuses a setting
   * @throws IOException or ClickHouseHttpException when ClickHouse cannot be asked
   */
  public void checkPassedSettings()
      throws IOException, InterruptedException, ClickHouseHttpException {
    if (options.extraSettings().isEmpty()) {
      return;
    }
    try {
      http.post(
          "SELECT 1 FORMAT Null",
          options.extraSettings(),
          ClickHouseHttp.data(0, out -> {}),
          options.timeout());
    } catch (ClickHouseHttpException e) {
      if (SETTING_REFUSED_CODES.contains(e.code())) {
        throw new IllegalArgumentException("ClickHouse refuses them: " + e.getMessage(), e);
      }
      throw e;
    }
  }

  /**
   * Inserts encoded rows.
   *
   * @param rows RowBinaryWithDefaults rows of {@code columns}
   * @param deduplicationToken the insert_deduplication_token, or null for none
   * @return the rows ClickHouse reports written (-1 when it did not say)
   * @throws InsertException when the rows are not written: after the retries for a transient
   *     failure, at once for any other
   */
  public long insert(
      TableName table, InsertColumns columns, RowBinaryOutput rows, String deduplicationToken)
      throws InsertException, InterruptedException {
    return insert(table, columns, rows, deduplicationToken, WaitedFor.ALWAYS);
  }

  /**
   * As {@link #insert(TableName, InsertColumns, RowBinaryOutput, String)}, for rows that somebody
   * may stop waiting for: a transient failure is retried only while they are waited for, and no
   * attempt outlasts the time they are waited for.
   */
  public long insert(
      TableName table,
      InsertColumns columns,
      RowBinaryOutput rows,
      String deduplicationToken,
      WaitedFor waitedFor)
      throws InsertException, InterruptedException {
    String sql =
        "INSERT INTO "
            + table.quoted()
            + " "
            + columns.sqlList()
            + " FORMAT "
            + format.clickHouseName();
    byte[] header = format == InsertFormat.TYPED ? columns.typedHeader() : new byte[0];
    ClickHouseHttp.RequestData body =
        ClickHouseHttp.data(
            header.length + (long) rows.size(),
            out -> {
              out.write(header);
              rows.writeTo(out);
            });
    long backoffMillis = options.firstBackoff().toMillis();
    for (int attempt = 1; ; attempt++) {
      Duration timeout;
      try {
        timeout = waitedFor.cap(options.timeout());
      } catch (SocketTimeoutException notSent) {
        // Nothing was sent: no backoff to sit out, the caller's other rows have no time to lose.
        throw new InsertException(FailureKind.TRANSIENT, attempt - 1, notSent);
      }
      try {
        return http.post(sql, settings(table, columns, deduplicationToken), body, timeout)
            .writtenRows();
      } catch (IOException | ClickHouseHttpException e) {
        FailureKind kind = ClickHouseFailures.classify(e);
        Exception failure = cutShort(e, timeout);
        // No backoff once nobody waits (an attempt cut at the deadline), nor past the time they
        // do: the caller's other rows keep that time.
        if (kind != FailureKind.TRANSIENT || attempt > options.maxRetries() || waitedFor.over()) {
          throw new InsertException(kind, attempt, failure);
        }
        // rounded up: a backoff cut short ends past the time, and no attempt follows it
        Thread.sleep(
            (waitedFor.atMost(Duration.ofMillis(backoffMillis)).toNanos() + 999_999) / 1_000_000);
        backoffMillis = Math.min(backoffMillis * 2, options.maxBackoff().toMillis());
        if (waitedFor.over()) {
          throw new InsertException(kind, attempt, failure);
        }
      }
    }
  }

  /**
   * An attempt that timed out before INSERT_TIMEOUT_MS was cut because nobody waited for its rows
   * any more: said so, rather than as a ClickHouse slower than its timeout.
   */
  private Exception cutShort(Exception failure, Duration timeout) {
    if (!(failure instanceof SocketTimeoutException) || timeout.compareTo(options.timeout()) >= 0) {
      return failure;
    }
    SocketTimeoutException cut =
        new SocketTimeoutException(
            "cut after "
                + timeout.toMillis()
                + " ms, when nobody waited for the rows any more (ClickHouse may still write them)");
    cut.addSuppressed(failure); // as in ClickHouseHttp: this message is what the logs show
    return cut;
  }

  private Map<String, String> settings(
      TableName table, InsertColumns columns, String deduplicationToken) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("database", table.database());
    settings.put("query_id", UUID.randomUUID().toString());
    settings.put("max_insert_block_size", Long.toString(options.maxInsertBlockSize()));
    settings.put("insert_deduplicate", options.deduplicate() ? "1" : "0");
    if (deduplicationToken != null) {
      settings.put("insert_deduplication_token", deduplicationToken);
    }
    settings.put("insert_distributed_sync", options.distributedSync() ? "1" : "0");
    // A retry must reach the shard that has its rows, and views must drop it as a copy too.
    settings.put("insert_distributed_one_random_shard", "0");
    settings.put("deduplicate_blocks_in_dependent_materialized_views", "1");
    options.quorum().ifPresent(q -> settings.put("insert_quorum", q.toString()));
    // Explicit either way: ClickHouse 26.x defaults async_insert to 1, and a view failure must
    // reach us rather than be ignored by a profile setting.
    settings.put("async_insert", options.asyncInsert() ? "1" : "0");
    if (options.asyncInsert()) {
      settings.put("wait_for_async_insert", "1");
      // Off by default: a retry after a lost answer would be written again.
      settings.put("async_insert_deduplicate", "1");
    }
    settings.put("materialized_views_ignore_errors", "0");
    // The typed header is checked against the table and may name no column the table lacks.
    settings.put("input_format_with_types_use_header", "1");
    settings.put("input_format_skip_unknown_fields", "0");
    settings.put("send_progress_in_http_headers", "0");
    if (columns.readsJsonAsString()) {
      settings.put("input_format_binary_read_json_as_string", "1");
    }
    settings.putAll(options.extraSettings());
    return settings;
  }
}
