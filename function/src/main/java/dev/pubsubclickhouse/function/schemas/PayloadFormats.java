package dev.pubsubclickhouse.function.schemas;

import com.google.pubsub.v1.Schema;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The format of a message's data, from its attributes: JSON, unless the topic has a Pub/Sub schema,
 * whose messages carry {@code googclient_schemaname}, {@code googclient_schemarevisionid} and
 * {@code googclient_schemaencoding}. A schema revision is fetched once and kept (revisions never
 * change); a message without a revision is read with the schema's newest revision, looked up again
 * after a minute. Thread-safe.
 */
public final class PayloadFormats {
  public static final String SCHEMA_NAME = "googclient_schemaname";
  public static final String SCHEMA_REVISION = "googclient_schemarevisionid";
  public static final String SCHEMA_ENCODING = "googclient_schemaencoding";

  /** Schema revisions kept; past this the memory starts over. */
  private static final int MAX_KEPT = 1000;

  static final Duration NEWEST_REVISION_KEPT_FOR = Duration.ofMinutes(1);

  private final SchemaFetcher fetcher;
  private final LongSupplier nanoTime;
  private final Map<String, Kept> kept = new ConcurrentHashMap<>();

  private record Kept(PayloadFormat format, long fetchedNanos, boolean newest) {}

  public PayloadFormats(SchemaFetcher fetcher) {
    this(fetcher, System::nanoTime);
  }

  PayloadFormats(SchemaFetcher fetcher, LongSupplier nanoTime) {
    this.fetcher = fetcher;
    this.nanoTime = nanoTime;
  }

  /**
   * How to read a message with these attributes.
   *
   * @throws SchemaUnavailableException when its schema could not be fetched
   */
  public PayloadFormat of(Map<String, String> attributes) throws SchemaUnavailableException {
    String name = attributes.get(SCHEMA_NAME);
    if (name == null) {
      return PayloadFormat.JSON;
    }
    String revision = attributes.get(SCHEMA_REVISION);
    String encoding = attributes.getOrDefault(SCHEMA_ENCODING, "");
    String resource = revision == null || revision.isEmpty() ? name : name + "@" + revision;
    String key = resource + "\n" + encoding;
    Kept known = kept.get(key);
    long now = nanoTime.getAsLong();
    if (known != null
        && (!known.newest || now - known.fetchedNanos < NEWEST_REVISION_KEPT_FOR.toNanos())) {
      return known.format;
    }
    Schema schema;
    try {
      schema = fetcher.fetch(resource);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new SchemaUnavailableException(
          "schema " + resource + " could not be fetched: " + e.getMessage(), e);
    }
    PayloadFormat format;
    try {
      format = formatOf(resource, schema, encoding);
    } catch (RuntimeException e) {
      throw new SchemaUnavailableException(
          "schema " + resource + " could not be read: " + e.getMessage(), e);
    }
    if (kept.size() >= MAX_KEPT) {
      kept.clear();
    }
    kept.put(key, new Kept(format, now, resource.equals(name)));
    return format;
  }

  /**
   * The decoder for a schema and an encoding ({@code BINARY} or {@code JSON}); one that rejects
   * every message when the schema cannot be used.
   */
  public static PayloadFormat formatOf(String resource, Schema schema, String encoding) {
    boolean binary;
    switch (encoding.toUpperCase(Locale.ROOT)) {
      case "BINARY" -> binary = true;
      case "JSON" -> binary = false;
      default -> {
        return PayloadFormat.rejecting(
            "attribute " + SCHEMA_ENCODING + " is '" + encoding + "', not JSON or BINARY");
      }
    }
    try {
      return switch (schema.getType()) {
        case AVRO -> AvroFormat.of(resource, schema.getDefinition(), binary);
        case PROTOCOL_BUFFER -> ProtobufFormat.of(resource, schema.getDefinition(), binary);
        default ->
            PayloadFormat.rejecting(
                "schema "
                    + resource
                    + " is of type "
                    + schema.getType()
                    + ", not AVRO or"
                    + " PROTOCOL_BUFFER");
      };
    } catch (IllegalArgumentException e) {
      return PayloadFormat.rejecting("schema " + resource + " cannot be used: " + e.getMessage());
    }
  }
}
