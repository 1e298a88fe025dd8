package dev.pubsubclickhouse.replay.table;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ClickHouseParameters;
import dev.pubsubclickhouse.core.config.ConfigReader;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.config.SecretManagerAccess;
import dev.pubsubclickhouse.core.insert.ClickHouseClients;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.ClickHouseReasons;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.write.DeadLetterTable;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.core.write.WriteEvents;
import dev.pubsubclickhouse.messages.MessageEncoder;
import dev.pubsubclickhouse.messages.MessageEvents;
import dev.pubsubclickhouse.messages.MessageParameters;
import dev.pubsubclickhouse.messages.cdc.ChangeReading;
import dev.pubsubclickhouse.messages.payload.PayloadDecompressor;
import dev.pubsubclickhouse.messages.payload.PayloadFormats;
import dev.pubsubclickhouse.messages.payload.SchemaService;
import dev.pubsubclickhouse.messages.tables.Destinations;
import dev.pubsubclickhouse.messages.tables.TableMapping;
import dev.pubsubclickhouse.replay.ExitCode;
import dev.pubsubclickhouse.replay.ReplayCommand;
import java.io.PrintStream;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code replay.jar table}: the ClickHouse side. ClickHouse, the target table and the dead-letter
 * table come from the push service's own variables, so the replay writes where the service writes.
 */
@Command(
    name = "table",
    description = {
      "Replay dead letters from the ClickHouse dead-letter table into the target table, once the"
          + " table or the data is fixed. Each replayed row leaves the dead-letter table; a message"
          + " that still does not fit gets a new row with the new reason in place of the old.",
      "",
      "ClickHouse and the tables come from the push service's variables: CLICKHOUSE_URL,"
          + " CLICKHOUSE_USER, CLICKHOUSE_PASSWORD (or CLICKHOUSE_PASSWORD_SECRET),"
          + " CLICKHOUSE_DATABASE, CLICKHOUSE_TABLE, CLICKHOUSE_DEAD_LETTER_TABLE, the routing by"
          + " attribute (CLICKHOUSE_TABLE_ATTRIBUTE, CLICKHOUSE_TABLES), UNKNOWN_FIELDS_COLUMN,"
          + " COLUMN_MAPPING (or COLUMN_MAPPING_FILE), and the INSERT settings"
          + " (CLICKHOUSE_SETTINGS, INSERT_*, MAX_RETRIES, ...).",
      ""
    })
public final class TableCommand extends ReplayCommand {
  @Option(
      names = "--batchSize",
      paramLabel = "N",
      defaultValue = "200",
      description = "Messages per INSERT. Default: ${DEFAULT-VALUE}.")
  int batchSize;

  public TableCommand(Map<String, String> environment, PrintStream out) {
    super(environment, out);
  }

  @Override
  public Integer call() throws InterruptedException {
    ClickHouseConfig config;
    TableReplay.Settings settings;
    TableMapping mapping;
    int maxDecompressedBytes;
    String pubsubEndpoint;
    try {
      if (batchSize < 1 || batchSize > 10_000) {
        throw new IllegalArgumentException("--batchSize must be between 1 and 10000");
      }
      settings =
          new TableReplay.Settings(
              common.filter(), common.dryRun(), batchSize, common.limit(), common.rateLimit());
      ConfigReader reader = new ConfigReader(environment);
      config = ClickHouseConfig.read(reader, new SecretManagerAccess(environment));
      JsonLog.neverPrint(config.password().reveal());
      if (config.deadLetterTable().isEmpty()) {
        throw new ConfigurationException(
            ClickHouseParameters.DEAD_LETTER_TABLE, "is required (the table to replay from)");
      }
      mapping = TableMapping.read(reader, config.table(), config.deadLetterTable());
      maxDecompressedBytes =
          reader.integer(MessageParameters.MAX_DECOMPRESSED_BYTES, 1024, 1 << 30);
      pubsubEndpoint = reader.optional(MessageParameters.PUBSUB_ENDPOINT).orElse(null);
    } catch (ConfigurationException | IllegalArgumentException e) {
      return usage(e);
    }
    try (Client client = ClickHouseClients.open(config, "pubsub-clickhouse-replay", 4);
        SchemaService schemas = new SchemaService(pubsubEndpoint)) {
      TableReplay replay;
      try {
        replay = open(client, config, mapping, settings, maxDecompressedBytes, schemas);
      } catch (RuntimeException e) {
        JsonLog.error(
            "replay: " + ClickHouseReasons.cannotUse(config.url(), e),
            Map.of(),
            common.verbose() ? e : null);
        return ExitCode.FAILED;
      }
      return replay.run();
    }
  }

  private TableReplay open(
      Client client,
      ClickHouseConfig config,
      TableMapping mapping,
      TableReplay.Settings settings,
      int maxDecompressed,
      SchemaService schemas) {
    TableName deadLetters = config.deadLetterTable().orElseThrow();
    DeadLetterRows rows = DeadLetterRows.open(client, deadLetters);
    SchemaReader reader = new SchemaReader(client);
    TargetTable target = new TargetTable(config.table(), reader, mapping.columnSources());
    ClickHouseInserter inserter =
        new ClickHouseInserter(
            ClickHouseHttp.open(config, "pubsub-clickhouse-replay"),
            InsertFormat.supportedBy(client),
            config.insertOptions());
    // A message that still does not fit gets its new dead letter before its old row goes: a token
    // of this run's own, so that a deduplicating table never drops it as a copy of the old one.
    DeadLetterTable sink =
        DeadLetterTable.open(client, deadLetters, false, inserter)
            .withTokenSource("dead letters replayed by " + UUID.randomUUID());
    // A change event (PAYLOAD_FORMAT=debezium) is routed and read as the service does: by its
    // source table, a truncate's DELETE applied again (not in a dry run, which deletes nothing).
    PayloadDecompressor decompressor = new PayloadDecompressor(maxDecompressed);
    Optional<ChangeReading> changes =
        mapping
            .changeCapture()
            .map(
                capture ->
                    settings.dryRun()
                        ? ChangeReading.preview(capture, decompressor, client)
                        : ChangeReading.open(capture, decompressor, client, MessageEvents.NONE));
    // Routed as the service routes: a dead letter goes back to the table its attribute names, and
    // its INSERT carries the token a push of the same messages carried.
    Destinations destinations =
        Destinations.open(
            mapping,
            reader,
            target,
            inserter,
            List.of(sink),
            false,
            table -> WriteEvents.NONE,
            changes.map(ChangeReading::router).orElse(null));
    // A dead letter is read as the service reads it (JSON, a change event, or its topic's Pub/Sub
    // schema), the fields no column takes gathered into UNKNOWN_FIELDS_COLUMN; with no schema
    // evolution: it goes back into the table as it now is.
    PayloadFormats formats =
        changes
            .map(reading -> new PayloadFormats(schemas, reading.format()))
            .orElseGet(() -> new PayloadFormats(schemas));
    MessageEncoder encoder =
        new MessageEncoder(
            decompressor,
            formats,
            null,
            mapping.unknownFieldsColumn().orElse(null),
            MessageEvents.NONE,
            Clock.systemUTC());
    return new TableReplay(rows, destinations, encoder, formats, settings, Clock.systemUTC(), out);
  }
}
