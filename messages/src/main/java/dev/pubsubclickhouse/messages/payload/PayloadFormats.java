package dev.pubsubclickhouse.messages.payload;

import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import com.google.pubsub.v1.Schema;
import dev.pubsubclickhouse.messages.MessageEvents;
import dev.pubsubclickhouse.messages.MessageParameters;
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
 * within a minute.
 *
 * <p>A schema the service may not read ({@code PERMISSION_DENIED}) is answered 503 while the denial
 * is younger than {@link SchemaLookups#deniedGrace()}: IAM grants take minutes to propagate after a
 * deploy, and dead-lettering every message of the topic meanwhile would not help. Past the grace
 * its messages are dead-lettered with the reason. The denial is kept for a minute between lookups,
 * and its age counts from the first denial this instance saw until a lookup succeeds.
 *
 * <p>Lookups are bounded to {@link SchemaLookups#perMinute()} (a token bucket refilled evenly over
 * the minute), so that a publisher naming a new schema in every message cannot make the service
 * call Pub/Sub for each. A message whose schema would need a lookup over the budget is answered 503
 * and not dead-lettered: nothing is wrong with the message itself, it may belong to a real schema,
 * and Pub/Sub keeps it and delivers it again (its own dead-lettering takes it after
 * max_delivery_attempts). Every other failure is {@link SchemaUnavailableException} (503).
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
  private final SchemaLookups limits;
  private final MessageEvents events;
  private final LongSupplier nanoTime;
  private final PayloadFormat every;
  private final Map<String, Kept> kept = new ConcurrentHashMap<>();

  /**
   * Pub/Sub's NOT_FOUND and INVALID_ARGUMENT answers, kept apart from the formats: a publisher who
   * names a new schema in every message fills this memory, never the one of real schemas.
   */
  private final Map<String, Kept> refused = new ConcurrentHashMap<>();

  private final Map<String, Denied> denied = new ConcurrentHashMap<>();
  private final Object budgetLock = new Object();
  private double lookupsLeft;
  private long budgetReadNanos;

  /** A format; one that {@code expires} is looked up again after NEWEST_REVISION_KEPT_FOR. */
  private record Kept(PayloadFormat format, long fetchedNanos, boolean expires) {}

  /** A schema name the service may not read: since when, when last asked, Pub/Sub's words. */
  private record Denied(long sinceNanos, long askedNanos, String answer) {}

  /** With the default limits, counting nothing (replay, tests). */
  public PayloadFormats(SchemaFetcher fetcher) {
    this(fetcher, SchemaLookups.DEFAULT, MessageEvents.NONE, System::nanoTime, null);
  }

  public PayloadFormats(SchemaFetcher fetcher, SchemaLookups limits, MessageEvents events) {
    this(fetcher, limits, events, System::nanoTime, null);
  }

  /**
   * Every message read with {@code every}, whatever its attributes: PAYLOAD_FORMAT=debezium reads
   * each as a change event (a message with a Pub/Sub schema is refused when it is routed).
   */
  public PayloadFormats(SchemaFetcher fetcher, PayloadFormat every) {
    this(fetcher, SchemaLookups.DEFAULT, MessageEvents.NONE, System::nanoTime, every);
  }

  /** These formats, but every message read with {@code every} (see above). */
  public PayloadFormats readingEveryMessageAs(PayloadFormat every) {
    return new PayloadFormats(fetcher, limits, events, nanoTime, every);
  }

  PayloadFormats(SchemaFetcher fetcher, LongSupplier nanoTime) {
    this(fetcher, SchemaLookups.DEFAULT, MessageEvents.NONE, nanoTime, null);
  }

  PayloadFormats(
      SchemaFetcher fetcher, SchemaLookups limits, MessageEvents events, LongSupplier nanoTime) {
    this(fetcher, limits, events, nanoTime, null);
  }

  private PayloadFormats(
      SchemaFetcher fetcher,
      SchemaLookups limits,
      MessageEvents events,
      LongSupplier nanoTime,
      PayloadFormat every) {
    this.fetcher = fetcher;
    this.limits = limits;
    this.events = events;
    this.nanoTime = nanoTime;
    this.lookupsLeft = limits.perMinute();
    this.budgetReadNanos = nanoTime.getAsLong();
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
    Kept refusedBefore = refused.get(key);
    if (refusedBefore != null
        && now - refusedBefore.fetchedNanos < NEWEST_REVISION_KEPT_FOR.toNanos()) {
      return refusedBefore.format;
    }
    Denied denial = denied.get(name);
    if (denial != null && now - denial.askedNanos < NEWEST_REVISION_KEPT_FOR.toNanos()) {
      return deniedFormat(resource, denial, now, null);
    }
    if (!takeLookup(now)) {
      if (known != null) {
        // A newest revision due to be looked up again: the one known serves until a lookup can be
        // had, so that names cycled by another publisher cost this schema's messages nothing.
        return known.format;
      }
      events.schemaLookupRefused();
      throw new SchemaUnavailableException(
          "schema "
              + resource
              + ": schema lookups are over "
              + MessageParameters.SCHEMA_LOOKUPS_PER_MINUTE.env()
              + " ("
              + limits.perMinute()
              + " a minute); answered 503 so that Pub/Sub delivers the message again",
          null);
    }
    events.schemaLookedUp();
    Schema schema;
    try {
      schema = fetcher.fetch(resource);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      if (statusOf(e) == StatusCode.Code.PERMISSION_DENIED) {
        long since = denial == null ? now : denial.sinceNanos;
        Denied again = new Denied(since, now, String.valueOf(e.getMessage()));
        keep(denied, name, again);
        return deniedFormat(resource, again, now, e);
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
      keep(refused, key, new Kept(rejecting, now, true));
      return rejecting;
    }
    denied.remove(name);
    PayloadFormat format;
    try {
      format = formatOf(resource, schema, encoding);
    } catch (RuntimeException e) {
      throw new SchemaUnavailableException(
          "schema " + resource + " could not be read: " + e.getMessage(), e);
    }
    keep(kept, key, new Kept(format, now, resource.equals(name)));
    return format;
  }

  /** 503 while the denial is younger than the grace, then a format that rejects with the reason. */
  private PayloadFormat deniedFormat(String resource, Denied denial, long now, Exception cause)
      throws SchemaUnavailableException {
    long ageSeconds = Duration.ofNanos(now - denial.sinceNanos).toSeconds();
    String denied =
        "schema " + resource + ": the service may not read it (PERMISSION_DENIED) since ";
    String grace = MessageParameters.SCHEMA_DENIED_GRACE_SECONDS.env();
    long graceSeconds = limits.deniedGrace().toSeconds();
    if (now - denial.sinceNanos < limits.deniedGrace().toNanos()) {
      throw new SchemaUnavailableException(
          denied
              + ageSeconds
              + " s; a denial younger than "
              + graceSeconds
              + " s ("
              + grace
              + ") is answered 503: "
              + denial.answer,
          cause);
    }
    return PayloadFormat.rejecting(
        denied
            + ageSeconds
            + " s, longer than "
            + grace
            + " ("
            + graceSeconds
            + " s): "
            + denial.answer);
  }

  /** True, and one lookup fewer left, when the budget allows one now. */
  private boolean takeLookup(long now) {
    synchronized (budgetLock) {
      double perNano = limits.perMinute() / (double) Duration.ofMinutes(1).toNanos();
      lookupsLeft = Math.min(limits.perMinute(), lookupsLeft + (now - budgetReadNanos) * perNano);
      budgetReadNanos = now;
      if (lookupsLeft < 1) {
        return false;
      }
      lookupsLeft--;
      return true;
    }
  }

  /**
   * Bounded: past MAX_KEPT the memory starts over. Lookups are bounded too, so a publisher cycling
   * through names makes it start over at most once every MAX_KEPT lookups.
   */
  private static <V> void keep(Map<String, V> memory, String key, V value) {
    if (memory.size() >= MAX_KEPT) {
      memory.clear();
    }
    memory.put(key, value);
  }

  /** NOT_FOUND or INVALID_ARGUMENT when Pub/Sub answered so, else null. */
  private static StatusCode.Code refusal(Throwable failure) {
    StatusCode.Code code = statusOf(failure);
    return code == StatusCode.Code.NOT_FOUND || code == StatusCode.Code.INVALID_ARGUMENT
        ? code
        : null;
  }

  /** The gRPC status Pub/Sub answered, or null when it did not answer one. */
  private static StatusCode.Code statusOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ApiException api) {
        return api.getStatusCode().getCode();
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
