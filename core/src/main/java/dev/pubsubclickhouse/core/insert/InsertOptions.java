package dev.pubsubclickhouse.core.insert;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The settings every INSERT carries, and how transient failures are retried. Built with {@link
 * #builder()}; the defaults are the README's.
 *
 * @param extraSettings further ClickHouse settings passed through as given; none of them may be one
 *     of {@link #SETTINGS_THE_SERVICE_OWNS} or of {@link #HTTP_REQUEST_PARAMETERS}
 * @param maxRetries retries after the first attempt, for transient failures only
 * @param timeout how long one attempt may take
 */
public record InsertOptions(
    long maxInsertBlockSize,
    boolean deduplicate,
    Optional<Integer> quorum,
    boolean distributedSync,
    boolean asyncInsert,
    Map<String, String> extraSettings,
    int maxRetries,
    Duration firstBackoff,
    Duration maxBackoff,
    Duration timeout) {

  /**
   * Settings that what a 2xx promises depends on, or that the INSERT sets itself: overriding one
   * could acknowledge rows only queued (async inserts without waiting, asynchronous Distributed
   * sends), hide a failed materialized view, let a retyped column through, make retries write
   * twice, split an INSERT into several blocks (so that a failure leaves part of it written) or
   * answer 200 before the INSERT is done. So may no {@code input_format_*} setting. Each choice
   * users have has its own variable.
   */
  public static final Set<String> SETTINGS_THE_SERVICE_OWNS =
      Set.of(
          "async_insert",
          "wait_for_async_insert",
          "async_insert_deduplicate",
          "insert_distributed_one_random_shard",
          "deduplicate_blocks_in_dependent_materialized_views",
          "insert_deduplicate",
          "insert_deduplication_token",
          "insert_quorum",
          "insert_distributed_sync",
          "distributed_foreground_insert",
          "max_insert_block_size",
          "materialized_views_ignore_errors",
          "min_insert_block_size_rows",
          "min_insert_block_size_bytes",
          "min_insert_block_size_rows_for_materialized_views",
          "min_insert_block_size_bytes_for_materialized_views",
          "max_insert_block_size_rows",
          "max_insert_block_size_bytes",
          "send_progress_in_http_headers",
          "insert_allow_materialized_columns",
          "query_id",
          "database",
          "readonly");

  /** Every input format setting: they decide how ClickHouse reads the rows the service encodes. */
  private static final String INPUT_FORMAT_SETTINGS = "input_format_";

  /**
   * What ClickHouse's HTTP interface reads from the URL beside the settings (its HTTPHandler's own
   * names): the statement, who runs it, where, how the answer is framed. Passed through they would
   * run another statement, as another user, or answer before the INSERT ends. A name the server
   * reads so and this list lacks is caught at readiness, where every name must be in {@code
   * system.settings}.
   */
  public static final Set<String> HTTP_REQUEST_PARAMETERS =
      Set.of(
          "query",
          "user",
          "password",
          "database",
          "query_id",
          "session_id",
          "session_timeout",
          "session_check",
          "close_session",
          "default_format",
          "quota_key",
          "role",
          "compress",
          "decompress",
          "buffer_size",
          "wait_end_of_query",
          "stacktrace",
          "client_protocol_version");

  /** Query parameters ({@code {name:Type}} in the statement) come as {@code param_<name>}. */
  private static final String QUERY_PARAMETERS = "param_";

  public InsertOptions {
    extraSettings = Map.copyOf(extraSettings);
    for (String name : extraSettings.keySet()) {
      String lower = name.toLowerCase(Locale.ROOT);
      if (HTTP_REQUEST_PARAMETERS.contains(lower) || lower.startsWith(QUERY_PARAMETERS)) {
        throw new IllegalArgumentException(
            name
                + " is a parameter of ClickHouse's HTTP interface, not a setting: the service sets"
                + " the query, the credentials and the database itself");
      }
      if (SETTINGS_THE_SERVICE_OWNS.contains(lower) || lower.startsWith(INPUT_FORMAT_SETTINGS)) {
        throw new IllegalArgumentException(
            "the setting "
                + name
                + " cannot be passed through: the service sets it (see the README's"
                + " configuration table for the variable that chooses it)");
      }
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder()
        .maxInsertBlockSize(maxInsertBlockSize)
        .deduplicate(deduplicate)
        .quorum(quorum)
        .distributedSync(distributedSync)
        .asyncInsert(asyncInsert)
        .extraSettings(extraSettings)
        .maxRetries(maxRetries)
        .backoff(firstBackoff, maxBackoff)
        .timeout(timeout);
  }

  /** Builds {@link InsertOptions}, starting from the README's defaults. */
  public static final class Builder {
    private long maxInsertBlockSize = 1_000_000;
    private boolean deduplicate = true;
    private Optional<Integer> quorum = Optional.empty();
    private boolean distributedSync = true;
    private boolean asyncInsert = false;
    private Map<String, String> extraSettings = Map.of();
    private int maxRetries = 5;
    private Duration firstBackoff = Duration.ofMillis(100);
    private Duration maxBackoff = Duration.ofSeconds(2);
    private Duration timeout = Duration.ofSeconds(30);

    private Builder() {}

    public Builder maxInsertBlockSize(long rows) {
      this.maxInsertBlockSize = rows;
      return this;
    }

    public Builder deduplicate(boolean deduplicate) {
      this.deduplicate = deduplicate;
      return this;
    }

    public Builder quorum(Optional<Integer> quorum) {
      this.quorum = quorum;
      return this;
    }

    public Builder distributedSync(boolean distributedSync) {
      this.distributedSync = distributedSync;
      return this;
    }

    public Builder asyncInsert(boolean asyncInsert) {
      this.asyncInsert = asyncInsert;
      return this;
    }

    public Builder extraSettings(Map<String, String> settings) {
      this.extraSettings = settings;
      return this;
    }

    public Builder maxRetries(int retries) {
      this.maxRetries = retries;
      return this;
    }

    /** The first wait before a retry, doubled each time up to {@code max}. */
    public Builder backoff(Duration first, Duration max) {
      this.firstBackoff = first;
      this.maxBackoff = max;
      return this;
    }

    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    public InsertOptions build() {
      return new InsertOptions(
          maxInsertBlockSize,
          deduplicate,
          quorum,
          distributedSync,
          asyncInsert,
          extraSettings,
          maxRetries,
          firstBackoff,
          maxBackoff,
          timeout);
    }
  }
}
