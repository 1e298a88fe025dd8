package dev.pubsubclickhouse.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Debezium's embedded engine with its Postgres connector ({@code pgoutput}, so the server needs no
 * extension) capturing a {@link ThrowAwayPostgres}, each change event published to a Pub/Sub topic
 * as Debezium Server's Pub/Sub sink publishes it: the data is the value's JSON (Kafka Connect's
 * JsonConverter), the ordering key the record key's JSON. A tombstone's value is null, and Pub/Sub
 * refuses a message with neither data nor attributes, so it goes with empty data and the record key
 * in the {@code key} attribute.
 *
 * <p>The converter writes the {@code schema}/{@code payload} wrapper. The events of the tables in
 * {@code withoutSchema} are published as their {@code payload} alone: what the converter writes
 * with {@code schemas.enable=false}, so that one engine feeds both shapes.
 */
final class DebeziumToPubSub implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Debezium and Kafka log every setting at INFO (through java.util.logging here): warnings only.
   */
  private static final List<Logger> QUIETER =
      Stream.of("io.debezium", "org.apache.kafka")
          .map(
              name -> {
                Logger logger = Logger.getLogger(name);
                logger.setLevel(Level.WARNING);
                return logger;
              })
          .toList();

  private final DebeziumEngine<ChangeEvent<String, String>> engine;
  private final ExecutorService runner = Executors.newSingleThreadExecutor();
  private final AtomicLong published = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  private DebeziumToPubSub(
      ThrowAwayPostgres postgres,
      Set<String> tables,
      Set<String> withoutSchema,
      PubSubRest pubsub,
      String topic) {
    Properties properties = new Properties();
    properties.setProperty("name", "cdc-through-emulator");
    properties.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    properties.setProperty(
        "offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    properties.setProperty("offset.flush.interval.ms", "1000");
    properties.setProperty("database.hostname", "127.0.0.1");
    properties.setProperty("database.port", Integer.toString(postgres.port()));
    properties.setProperty("database.user", "postgres");
    properties.setProperty("database.password", "unused");
    properties.setProperty("database.dbname", "postgres");
    properties.setProperty("topic.prefix", "shop");
    properties.setProperty("plugin.name", "pgoutput");
    properties.setProperty("slot.name", "cdc_through_emulator");
    properties.setProperty("publication.autocreate.mode", "filtered");
    properties.setProperty("table.include.list", String.join(",", tables));
    properties.setProperty("snapshot.mode", "initial");
    // Truncates are skipped unless asked for.
    properties.setProperty("skipped.operations", "none");
    properties.setProperty("converter.schemas.enable", "true");
    engine =
        DebeziumEngine.create(Json.class)
            .using(properties)
            .notifying(
                (records, committer) -> {
                  List<Message> messages = new ArrayList<>();
                  for (ChangeEvent<String, String> record : records) {
                    messages.add(message(record, withoutSchema));
                  }
                  if (!messages.isEmpty()) {
                    pubsub.publish(topic, messages);
                    published.addAndGet(messages.size());
                  }
                  for (ChangeEvent<String, String> record : records) {
                    committer.markProcessed(record);
                  }
                  committer.markBatchFinished();
                })
            .using(
                (success, message, error) -> {
                  if (!success) {
                    failure.compareAndSet(
                        null, error != null ? error : new IllegalStateException(message));
                  }
                })
            .build();
  }

  /** Starts capturing: a snapshot of {@code tables}, then their changes as they commit. */
  static DebeziumToPubSub start(
      ThrowAwayPostgres postgres,
      Set<String> tables,
      Set<String> withoutSchema,
      PubSubRest pubsub,
      String topic) {
    DebeziumToPubSub capture = new DebeziumToPubSub(postgres, tables, withoutSchema, pubsub, topic);
    capture.runner.execute(capture.engine);
    return capture;
  }

  /** Events published so far. */
  long published() {
    return published.get();
  }

  /** Why the engine stopped, if it did. */
  Throwable failure() {
    return failure.get();
  }

  private static Message message(ChangeEvent<String, String> record, Set<String> withoutSchema) {
    String key = record.key() == null ? "" : record.key();
    if (record.value() == null) {
      return new Message(new byte[0], Map.of("key", key), key);
    }
    String value = record.value();
    try {
      JsonNode event = JSON.readTree(value);
      JsonNode source = event.path("payload").path("source");
      if (withoutSchema.contains(
          source.path("schema").asText() + "." + source.path("table").asText())) {
        value = event.get("payload").toString();
        key = key.isEmpty() ? key : JSON.readTree(key).path("payload").toString();
      }
    } catch (IOException e) {
      throw new IllegalStateException("Debezium wrote no JSON: " + value, e);
    }
    return new Message(value.getBytes(StandardCharsets.UTF_8), Map.of(), key);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    engine.close();
    runner.shutdown();
    runner.awaitTermination(30, TimeUnit.SECONDS);
  }
}
