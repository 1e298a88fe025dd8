package dev.pubsubclickhouse.messages.payload;

import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
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
 * after a minute.
 *
 * <p>A schema that Pub/Sub answers does not exist ({@code NOT_FOUND}) or cannot be named so ({@code
 * INVALID_ARGUMENT}) will not come into being by asking again, so its messages are rejected with
 * that reason (dead-lettered), and the answer is kept for a minute like a newest revision: a
 * message naming such a schema costs no RPC on every delivery, and a schema made since is found
 * within a minute. Every other failure, {@code PERMISSION_DENIED} included, is {@link
 * SchemaUnavailableException} (503): a missing grant is the deployment's to fix, as ClickHouse's
 * ACCESS_DENIED is, and dead-lettering every message of the topic meanwhile would not help.
 * Thread-safe.
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
  private final PayloadFormat every;
  private final Map<String, Kept> kept = new ConcurrentHashMap<>();

  /** A format; one that {@code expires} is looked up again after NEWEST_REVISION_KEPT_FOR. */
  private record Kept(PayloadFormat format, long fetchedNanos, boolean expires) {}

  public PayloadFormats(SchemaFetcher fetcher) {
    this(fetcher, System::nanoTime, null);
  }

  /**
   * Every message read with {@code every}, whatever its attributes: PAYLOAD_FORMAT=debezium reads
   * each as a change event (a message with a Pub/Sub schema is refused when it is routed).
   */
  public PayloadFormats(SchemaFetcher fetcher, PayloadFormat every) {
    this(fetcher, System::nanoTime, every);
  }

  PayloadFormats(SchemaFetcher fetcher, LongSupplier nanoTime) {
    this(fetcher, nanoTime, null);
  }

  private PayloadFormats(SchemaFetcher fetcher, LongSupplier nanoTime, PayloadFormat every) {
    this.fetcher = fetcher;
    this.nanoTime = nanoTime;
    this.every = every;
  }

  /**
   * How to read a message with these attributes.
   *
   * @throws SchemaUnavailableException when its schema could not be fetched
   */
  public PayloadFormat of(Map<String, String> attributes) throws SchemaUnavailableException {
    if (every != null) {
      return every;
    }
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
        && (!known.expires || now - known.fetchedNanos < NEWEST_REVISION_KEPT_FOR.toNanos())) {
      return known.format;
    }
    Schema schema;
    try {
      schema = fetcher.fetch(resource);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      StatusCode.Code refusal = refusal(e);
      if (refusal == null) {
        throw new SchemaUnavailableException(
            "schema " + resource + " could not be fetched: " + e.getMessage(), e);
      }
      PayloadFormat rejecting =
          PayloadFormat.rejecting(
              "schema "
                  + resource
                  + " is not in Pub/Sub's schema service ("
                  + refusal
                  + "): "
                  + e.getMessage());
      keep(key, new Kept(rejecting, now, true));
      return rejecting;
    }
    PayloadFormat format;
    try {
      format = formatOf(resource, schema, encoding);
    } catch (RuntimeException e) {
      throw new SchemaUnavailableException(
          "schema " + resource + " could not be read: " + e.getMessage(), e);
    }
    keep(key, new Kept(format, now, resource.equals(name)));
    return format;
  }

  private void keep(String key, Kept format) {
    if (kept.size() >= MAX_KEPT) {
      kept.clear();
    }
    kept.put(key, format);
  }

  /** NOT_FOUND or INVALID_ARGUMENT when Pub/Sub answered so, else null. */
  private static StatusCode.Code refusal(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ApiException api) {
        StatusCode.Code code = api.getStatusCode().getCode();
        return code == StatusCode.Code.NOT_FOUND || code == StatusCode.Code.INVALID_ARGUMENT
            ? code
            : null;
      }
    }
    return null;
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
