package dev.pubsubclickhouse.backfill;

import static dev.pubsubclickhouse.backfill.BackfillParameters.*;

import com.google.cloud.bigquery.TableId;
import dev.pubsubclickhouse.backfill.source.SourceResolver.QuerySpec;
import dev.pubsubclickhouse.backfill.source.TableSpec;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.config.MisspeltVariables;
import dev.pubsubclickhouse.core.config.Parameter;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.schema.TableName;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The job's configuration, read and checked before anything is read from BigQuery.
 *
 * @param inputTable the table to read, when there is no query
 * @param project the project that runs jobs and is billed for reads
 * @param deadLetterTable the BigQuery table for rows that cannot be written, if any
 * @param checkpointTable the ClickHouse table that records written pages, if any
 * @param retryDeadLetters try the rows earlier runs dead-lettered again even when the target's
 *     definition has not changed since
 * @param read how rows are read
 * @param tableCreation whether and how the ClickHouse table is made from the BigQuery schema
 * @param executionId identifies one execution of the job (all of its tasks and their retries)
 * @param notes things worth one warning line at start (never a secret)
 * @param verbose log the ClickHouse client's retries and a failure's stack trace
 */
public record BackfillConfig(
    Optional<TableId> inputTable,
    Optional<String> query,
    boolean useLegacySql,
    Optional<String> queryLocation,
    Optional<String> queryTempDataset,
    Optional<String> kmsKey,
    String project,
    Optional<URI> bigQueryEndpoint,
    boolean credentialsWithEndpoint,
    Optional<TableId> deadLetterTable,
    ClickHouseConfig clickHouse,
    Optional<TableName> checkpointTable,
    boolean retryDeadLetters,
    ReadOptions read,
    TableCreation tableCreation,
    boolean dryRun,
    Duration progressInterval,
    int taskIndex,
    int taskCount,
    String executionId,
    List<String> notes,
    boolean verbose) {

  /** Which API reads the rows. */
  public enum PageReaderKind {
    /** The Storage Read API: Avro streams at the snapshot time. */
    STORAGE,
    /** tabledata.list, parsed by a streaming JSON reader. */
    REST,
    /** tabledata.list through the client library's parser. */
    CLIENT
  }

  /** Whether the ClickHouse table is created from the BigQuery schema, and its ORDER BY. */
  public record TableCreation(boolean create, Optional<String> orderBy) {}

  private static final String NONE = "none";

  /**
   * Reads every parameter from the environment and the flags.
   *
   * @throws ConfigurationException one line naming the parameter
   */
  public static BackfillConfig read(Map<String, String> environment, String[] args) {
    Map<String, String> flags = CommandLineFlags.parse(args);
    List<String> notes = new ArrayList<>(MisspeltVariables.in(environment, BackfillParameters.ALL));
    Map<String, String> effective = clickHouseEndpoint(environment, flags, notes);
    ConfigReader config = new ConfigReader(effective, flags);

    Optional<String> query = config.optional(QUERY);
    Optional<String> explicitProject = config.optional(PROJECT);
    Optional<TableId> inputTable = Optional.empty();
    if (query.isEmpty()) {
      String spec =
          config
              .optional(INPUT_TABLE_SPEC)
              .orElseThrow(
                  () ->
                      new ConfigurationException(INPUT_TABLE_SPEC, "is required (or set --query)"));
      inputTable = Optional.of(tableSpec(INPUT_TABLE_SPEC, spec, explicitProject));
    } else if (config.optional(INPUT_TABLE_SPEC).isPresent()) {
      notes.add(
          "both --query and --inputTableSpec are set: reading the query, as the template does");
    }
    String project =
        explicitProject
            .or(() -> projectOfInputTable(config, explicitProject))
            .orElseThrow(
                () ->
                    new ConfigurationException(
                        PROJECT, "is required to run a query (or give --inputTableSpec)"));

    Optional<TableId> deadLetter;
    Optional<String> deadLetterText = config.optional(OUTPUT_DEADLETTER_TABLE);
    if (deadLetterText.isPresent()) {
      deadLetter =
          NONE.equalsIgnoreCase(deadLetterText.get())
              ? Optional.empty()
              : Optional.of(
                  tableSpec(OUTPUT_DEADLETTER_TABLE, deadLetterText.get(), Optional.of(project)));
    } else {
      TableId dataset =
          datasetSpec(
              OUTPUT_DEADLETTER_DATASET, config.required(OUTPUT_DEADLETTER_DATASET), project);
      String name =
          inputTable.map(t -> t.getTable() + "_error_records").orElse("query_error_records");
      deadLetter = Optional.of(TableId.of(dataset.getProject(), dataset.getDataset(), name));
    }

    Optional<String> kmsKey = config.optional(KMS_ENCRYPTION_KEY);
    kmsKey.ifPresent(
        key -> {
          if (!key.matches("projects/[^/]+/locations/[^/]+/keyRings/[^/]+/cryptoKeys/[^/]+")) {
            throw new ConfigurationException(
                KMS_ENCRYPTION_KEY,
                "expected projects/P/locations/L/keyRings/R/cryptoKeys/K, got '" + key + "'");
          }
        });
    Optional<String> tempDataset = config.optional(QUERY_TEMP_DATASET);
    tempDataset.ifPresent(
        dataset -> {
          if (!dataset.matches("(?:[^:.]+[:.])?\\w+")) {
            throw new ConfigurationException(
                QUERY_TEMP_DATASET, "expected a dataset name, got '" + dataset + "'");
          }
        });

    Optional<URI> endpoint =
        config.optional(BIGQUERY_ENDPOINT).map(text -> config.secureUrl(BIGQUERY_ENDPOINT));

    ClickHouseConfig clickHouse = ClickHouseConfig.read(config, new SecretManagerAccess(effective));

    Optional<TableName> checkpoints =
        config
            .optional(CHECKPOINT_TABLE)
            .filter(name -> !NONE.equalsIgnoreCase(name))
            .map(name -> tableName(CHECKPOINT_TABLE, name, clickHouse.table().database()));
    boolean retryDeadLetters = config.bool(RETRY_DEAD_LETTERS);
    if (retryDeadLetters && checkpoints.isEmpty()) {
      throw new ConfigurationException(
          RETRY_DEAD_LETTERS,
          "needs the checkpoint table, which keeps the rows to retry (CHECKPOINT_TABLE is none)");
    }

    PageReaderKind reader = pageReader(config, endpoint.isPresent());
    Optional<String> rowRestriction = config.optional(ROW_RESTRICTION);
    if (rowRestriction.isPresent() && query.isPresent()) {
      throw new ConfigurationException(
          ROW_RESTRICTION, "applies to --inputTableSpec; put the condition in the query instead");
    }
    ReadOptions read =
        ReadOptions.builder()
            .reader(reader)
            .storageEndpoint(config.optional(BIGQUERY_STORAGE_ENDPOINT).map(text -> hostPort(text)))
            .streamsPerTask(config.integer(STREAMS_PER_TASK, 1, 64))
            .bigQueryMaxAttempts(config.integer(BIGQUERY_MAX_ATTEMPTS, 1, 100))
            .rowRestriction(rowRestriction)
            .pageRows(config.integer(PAGE_ROWS, 1, 1_000_000))
            .prefetchPages(config.integer(PREFETCH_PAGES, 1, 16))
            .build();

    int taskCount = config.integer(TASK_COUNT, 1, 100_000);
    int taskIndex = config.integer(TASK_INDEX, 0, 99_999);
    if (taskIndex >= taskCount) {
      throw new ConfigurationException(
          TASK_INDEX, "must be below CLOUD_RUN_TASK_COUNT (" + taskCount + "), got " + taskIndex);
    }
    if (taskCount > 1 && checkpoints.isEmpty() && reader == PageReaderKind.STORAGE) {
      throw new ConfigurationException(
          CHECKPOINT_TABLE,
          "is needed by "
              + taskCount
              + " tasks reading with the Storage Read API: their shared read session is pinned"
              + " beside it (or set PAGE_READER=rest)");
    }
    String execution =
        Optional.ofNullable(environment.get("CLOUD_RUN_EXECUTION"))
            .filter(s -> !s.isBlank())
            .orElseGet(() -> "local-" + UUID.randomUUID());

    return builder()
        .inputTable(inputTable)
        .query(query)
        .useLegacySql(config.bool(USE_LEGACY_SQL))
        .queryLocation(config.optional(QUERY_LOCATION))
        .queryTempDataset(tempDataset)
        .kmsKey(kmsKey)
        .project(project)
        .bigQueryEndpoint(endpoint)
        .credentialsWithEndpoint(environment.get("GOOGLE_APPLICATION_CREDENTIALS") != null)
        .deadLetterTable(deadLetter)
        .clickHouse(clickHouse)
        .checkpointTable(checkpoints)
        .retryDeadLetters(retryDeadLetters)
        .read(read)
        .tableCreation(new TableCreation(config.bool(CREATE_TABLE), config.optional(ORDER_BY)))
        .dryRun(config.bool(DRY_RUN))
        .progressInterval(Duration.ofSeconds(config.longValue(PROGRESS_INTERVAL_SECONDS, 1, 3600)))
        .taskIndex(taskIndex)
        .taskCount(taskCount)
        .executionId(execution)
        .notes(notes)
        .verbose(config.bool(VERBOSE))
        .build();
  }

  /**
   * The query whose result is read, as BigQuery runs it.
   *
   * @throws java.util.NoSuchElementException when the job reads a table, not a query
   */
  public QuerySpec querySpec() {
    return new QuerySpec(
        query.orElseThrow(), useLegacySql, queryLocation, queryTempDataset, kmsKey);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a configuration by name, as {@link #read} does from the parameters. The project, the
   * ClickHouse configuration, the read options, the progress interval and the execution id must be
   * set; what else is not set is empty, false or zero (one task).
   */
  public static final class Builder {
    private Optional<TableId> inputTable = Optional.empty();
    private Optional<String> query = Optional.empty();
    private boolean useLegacySql;
    private Optional<String> queryLocation = Optional.empty();
    private Optional<String> queryTempDataset = Optional.empty();
    private Optional<String> kmsKey = Optional.empty();
    private String project;
    private Optional<URI> bigQueryEndpoint = Optional.empty();
    private boolean credentialsWithEndpoint;
    private Optional<TableId> deadLetterTable = Optional.empty();
    private ClickHouseConfig clickHouse;
    private Optional<TableName> checkpointTable = Optional.empty();
    private boolean retryDeadLetters;
    private ReadOptions read;
    private TableCreation tableCreation = new TableCreation(false, Optional.empty());
    private boolean dryRun;
    private Duration progressInterval;
    private int taskIndex;
    private int taskCount = 1;
    private String executionId;
    private List<String> notes = List.of();
    private boolean verbose;

    private Builder() {}

    public Builder inputTable(Optional<TableId> value) {
      inputTable = value;
      return this;
    }

    public Builder query(Optional<String> value) {
      query = value;
      return this;
    }

    public Builder useLegacySql(boolean value) {
      useLegacySql = value;
      return this;
    }

    public Builder queryLocation(Optional<String> value) {
      queryLocation = value;
      return this;
    }

    public Builder queryTempDataset(Optional<String> value) {
      queryTempDataset = value;
      return this;
    }

    public Builder kmsKey(Optional<String> value) {
      kmsKey = value;
      return this;
    }

    public Builder project(String value) {
      project = value;
      return this;
    }

    public Builder bigQueryEndpoint(Optional<URI> value) {
      bigQueryEndpoint = value;
      return this;
    }

    public Builder credentialsWithEndpoint(boolean value) {
      credentialsWithEndpoint = value;
      return this;
    }

    public Builder deadLetterTable(Optional<TableId> value) {
      deadLetterTable = value;
      return this;
    }

    public Builder clickHouse(ClickHouseConfig value) {
      clickHouse = value;
      return this;
    }

    public Builder checkpointTable(Optional<TableName> value) {
      checkpointTable = value;
      return this;
    }

    public Builder retryDeadLetters(boolean value) {
      retryDeadLetters = value;
      return this;
    }

    public Builder read(ReadOptions value) {
      read = value;
      return this;
    }

    public Builder tableCreation(TableCreation value) {
      tableCreation = value;
      return this;
    }

    public Builder dryRun(boolean value) {
      dryRun = value;
      return this;
    }

    public Builder progressInterval(Duration value) {
      progressInterval = value;
      return this;
    }

    public Builder taskIndex(int value) {
      taskIndex = value;
      return this;
    }

    public Builder taskCount(int value) {
      taskCount = value;
      return this;
    }

    public Builder executionId(String value) {
      executionId = value;
      return this;
    }

    public Builder notes(List<String> value) {
      notes = List.copyOf(value);
      return this;
    }

    public Builder verbose(boolean value) {
      verbose = value;
      return this;
    }

    public BackfillConfig build() {
      Objects.requireNonNull(project, "project");
      Objects.requireNonNull(clickHouse, "clickHouse");
      Objects.requireNonNull(read, "read");
      Objects.requireNonNull(progressInterval, "progressInterval");
      Objects.requireNonNull(executionId, "executionId");
      return new BackfillConfig(
          inputTable,
          query,
          useLegacySql,
          queryLocation,
          queryTempDataset,
          kmsKey,
          project,
          bigQueryEndpoint,
          credentialsWithEndpoint,
          deadLetterTable,
          clickHouse,
          checkpointTable,
          retryDeadLetters,
          read,
          tableCreation,
          dryRun,
          progressInterval,
          taskIndex,
          taskCount,
          executionId,
          notes,
          verbose);
    }
  }

  /** A one-line description of the source, for logs. */
  public String sourceDescription() {
    return query.isPresent() ? "query" : TableSpec.format(inputTable.orElseThrow());
  }

  private static Optional<String> projectOfInputTable(
      ConfigReader config, Optional<String> explicitProject) {
    return config.optional(QUERY).isPresent()
        ? Optional.empty()
        : config
            .optional(INPUT_TABLE_SPEC)
            .map(spec -> tableSpec(INPUT_TABLE_SPEC, spec, explicitProject).getProject());
  }

  /**
   * The environment as core's ClickHouse reader expects it: {@code jdbcUrl}, {@code
   * --clickHouseUrl} and {@code --clickHouseDatabase} become CLICKHOUSE_URL and
   * CLICKHOUSE_DATABASE.
   */
  private static Map<String, String> clickHouseEndpoint(
      Map<String, String> environment, Map<String, String> flags, List<String> notes) {
    Map<String, String> effective = new HashMap<>(environment);
    copyFlag(flags, CLICKHOUSE_URL, effective);
    copyFlag(flags, CLICKHOUSE_DATABASE, effective);
    String jdbc = flags.getOrDefault(JDBC_URL.flag(), environment.get(JDBC_URL.env()));
    if (jdbc != null && !jdbc.isBlank()) {
      if (present(effective.get(CLICKHOUSE_URL.env()))) {
        throw new ConfigurationException(
            JDBC_URL, "set either it or CLICKHOUSE_URL (--clickHouseUrl), not both");
      }
      JdbcUrl url;
      try {
        url = JdbcUrl.parse(jdbc.trim());
      } catch (IllegalArgumentException e) {
        throw new ConfigurationException(JDBC_URL, e.getMessage());
      }
      effective.put(CLICKHOUSE_URL.env(), url.endpoint().toString());
      url.database()
          .ifPresent(
              db -> {
                if (!present(effective.get(CLICKHOUSE_DATABASE.env()))) {
                  effective.put(CLICKHOUSE_DATABASE.env(), db);
                }
              });
      if (!url.ignoredOptions().isEmpty()) {
        notes.add(
            "jdbcUrl options without effect here: " + String.join(", ", url.ignoredOptions()));
      }
    } else if (!present(effective.get(CLICKHOUSE_URL.env()))) {
      throw new ConfigurationException(
          CLICKHOUSE_URL, "is required (or give --jdbcUrl=jdbc:clickhouse://host:port/db)");
    }
    return effective;
  }

  private static void copyFlag(
      Map<String, String> flags, Parameter parameter, Map<String, String> effective) {
    String value = flags.get(parameter.flag());
    if (value != null) {
      effective.put(parameter.env(), value);
    }
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }

  /** The Storage Read API in the cloud, REST against an emulator or test server. */
  private static PageReaderKind pageReader(ConfigReader config, boolean restEndpoint) {
    Optional<String> value = config.optional(PAGE_READER);
    if (value.isEmpty()) {
      return restEndpoint ? PageReaderKind.REST : PageReaderKind.STORAGE;
    }
    try {
      return PageReaderKind.valueOf(value.get().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(
          PAGE_READER, "expected storage, rest or client, got '" + value.get() + "'");
    }
  }

  private static String hostPort(String text) {
    if (!text.matches("[A-Za-z0-9.\\-]+:\\d{1,5}")) {
      throw new ConfigurationException(
          BIGQUERY_STORAGE_ENDPOINT, "expected host:port, got '" + text + "'");
    }
    return text;
  }

  /** {@code dataset} or {@code project:dataset} (or {@code project.dataset}), as a TableId. */
  private static TableId datasetSpec(Parameter parameter, String spec, String project) {
    String text = spec.trim();
    int separator = Math.max(text.lastIndexOf(':'), text.indexOf('.'));
    String datasetProject = separator < 0 ? project : text.substring(0, separator);
    String dataset = separator < 0 ? text : text.substring(separator + 1);
    if (!dataset.matches("\\w+") || datasetProject.isBlank()) {
      throw new ConfigurationException(
          parameter, "expected dataset or project:dataset, got '" + text + "'");
    }
    return TableId.of(datasetProject, dataset, "_");
  }

  private static TableId tableSpec(Parameter parameter, String spec, Optional<String> project) {
    try {
      return TableSpec.parse(spec, project);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(parameter, e.getMessage());
    }
  }

  private static TableName tableName(Parameter parameter, String name, String database) {
    try {
      return TableName.parse(name, database);
    } catch (IllegalArgumentException e) {
      throw new ConfigurationException(parameter, e.getMessage());
    }
  }
}
