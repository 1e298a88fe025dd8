package dev.pubsubclickhouse.core.write;

import java.time.Instant;
import java.util.Map;

/**
 * A record that cannot be written, as the dead-letter sinks keep it: the original data and
 * attributes (so that a replay is the same message), where it came from, and why. Built with {@link
 * #builder()}.
 *
 * @param identity the record's identity ({@link WriteRecord#identity()}), or null
 * @param data the data as published (what a dead-letter topic republishes)
 * @param payload the data as read, decompressed when it was compressed (what the dead-letter table
 *     shows)
 * @param origin where it came from, in a stable order: for a Pub/Sub message the keys {@link
 *     #MESSAGE_ID}, {@link #PUBLISH_TIME}, {@link #SUBSCRIPTION}, {@link #ORDERING_KEY}, {@link
 *     #DELIVERY_ATTEMPT}, each present only when the message has it; for a backfill {@link
 *     #SOURCE_ROW}
 * @param reason what is wrong: the column, its type, the value and the rule, or ClickHouse's
 *     message
 */
public record DeadLetter(
    String identity,
    byte[] data,
    byte[] payload,
    Map<String, String> attributes,
    Map<String, String> origin,
    String reason,
    Instant failedAt) {
  /** The Pub/Sub message id. */
  public static final String MESSAGE_ID = "messageId";

  /** When Pub/Sub received the message, RFC 3339 as Pub/Sub sent it. */
  public static final String PUBLISH_TIME = "publishTime";

  /** The subscription that delivered it, {@code projects/P/subscriptions/S}. */
  public static final String SUBSCRIPTION = "subscription";

  /** The message's ordering key, when it has one. */
  public static final String ORDERING_KEY = "orderingKey";

  /** Which delivery of the message this was, when Pub/Sub said. */
  public static final String DELIVERY_ATTEMPT = "deliveryAttempt";

  /** A backfill's row: its position in the source. A dead letter with it is no Pub/Sub message. */
  public static final String SOURCE_ROW = "sourceRow";

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a {@link DeadLetter}: no identity, no attributes, no origin, and the payload the data
   * itself unless it is given. Arrays and maps are kept as given, uncopied.
   */
  public static final class Builder {
    private String identity;
    private byte[] data;
    private byte[] payload;
    private Map<String, String> attributes = Map.of();
    private Map<String, String> origin = Map.of();
    private String reason;
    private Instant failedAt;

    private Builder() {}

    public Builder identity(String identity) {
      this.identity = identity;
      return this;
    }

    public Builder data(byte[] data) {
      this.data = data;
      return this;
    }

    /** The data as read, when it differs from the data as published (it was compressed). */
    public Builder payload(byte[] payload) {
      this.payload = payload;
      return this;
    }

    public Builder attributes(Map<String, String> attributes) {
      this.attributes = attributes;
      return this;
    }

    public Builder origin(Map<String, String> origin) {
      this.origin = origin;
      return this;
    }

    public Builder reason(String reason) {
      this.reason = reason;
      return this;
    }

    public Builder failedAt(Instant failedAt) {
      this.failedAt = failedAt;
      return this;
    }

    public DeadLetter build() {
      return new DeadLetter(
          identity, data, payload == null ? data : payload, attributes, origin, reason, failedAt);
    }
  }
}
