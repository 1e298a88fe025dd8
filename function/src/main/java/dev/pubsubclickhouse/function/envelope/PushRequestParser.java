package dev.pubsubclickhouse.function.envelope;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.pubsubclickhouse.core.encode.JsonPayloads;
import dev.pubsubclickhouse.core.encode.Utf8Bytes;
import dev.pubsubclickhouse.messages.PubSubMessage;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads push requests in both forms Pub/Sub sends:
 *
 * <ul>
 *   <li>wrapped (the default): {@code {"message":{"data","attributes","messageId","publishTime",
 *       "orderingKey"},"subscription","deliveryAttempt"}}, streamed without building a tree; the
 *       snake_case duplicates some senders add are accepted and unknown fields ignored.
 *   <li>unwrapped ({@code no_wrapper}): the body is the data; with {@code write_metadata} the
 *       metadata arrives in {@code x-goog-pubsub-*} headers and each attribute in a header of its
 *       own. Recognised by those headers, or assumed for every request when configured. The headers
 *       that carry the request, a credential or what Google's front ends add are no attributes
 *       ({@link RequestHeaders}).
 * </ul>
 */
public final class PushRequestParser {
  static final String METADATA_PREFIX = "x-goog-pubsub-";

  /**
   * Where gcloud's Pub/Sub emulator puts the ordering key of an unwrapped push (Pub/Sub itself uses
   * {@code x-goog-pubsub-ordering-key}): read as the ordering key, not as an attribute.
   */
  static final String EMULATOR_ORDERING_KEY = "x-goog-ordering-key";

  /** A field given twice refuses: which of two "data" values was meant is not ours to guess. */
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(64)
                  .maxStringLength(50_000_000)
                  .build())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private final boolean alwaysUnwrapped;

  /**
   * @param alwaysUnwrapped true when the subscription uses no_wrapper without metadata headers
   */
  public PushRequestParser(boolean alwaysUnwrapped) {
    this.alwaysUnwrapped = alwaysUnwrapped;
  }

  /**
   * @param headers lower-case names to values, as the request carried them
   */
  public PubSubMessage parse(byte[] body, Map<String, List<String>> headers)
      throws NotAPushRequestException {
    if (alwaysUnwrapped || headers.containsKey(METADATA_PREFIX + "message-id")) {
      return unwrapped(body, headers);
    }
    return wrapped(body);
  }

  private static PubSubMessage unwrapped(byte[] body, Map<String, List<String>> headers) {
    Map<String, String> attributes = new HashMap<>();
    for (Map.Entry<String, List<String>> header : headers.entrySet()) {
      // The metadata headers (x-goog-pubsub-*, the emulator's x-goog-ordering-key) are among
      // those that are no attribute.
      if (RequestHeaders.mayBeAttribute(header.getKey()) && !header.getValue().isEmpty()) {
        attributes.put(header.getKey(), header.getValue().get(0));
      }
    }
    String attempt = first(headers, METADATA_PREFIX + "delivery-attempt");
    String orderingKey = first(headers, METADATA_PREFIX + "ordering-key");
    return PubSubMessage.builder()
        .data(body)
        .attributes(attributes)
        .messageId(first(headers, METADATA_PREFIX + "message-id"))
        .publishTime(first(headers, METADATA_PREFIX + "publish-time"))
        .orderingKey(orderingKey != null ? orderingKey : first(headers, EMULATOR_ORDERING_KEY))
        .subscription(first(headers, METADATA_PREFIX + "subscription-name"))
        .deliveryAttempt(attempt == null ? null : parseAttempt(attempt))
        .build();
  }

  private static Integer parseAttempt(String text) {
    try {
      return Integer.valueOf(text.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String first(Map<String, List<String>> headers, String name) {
    List<String> values = headers.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  private static PubSubMessage wrapped(byte[] body) throws NotAPushRequestException {
    if (body.length == 0) {
      throw new NotAPushRequestException("empty body: expected a Pub/Sub push request");
    }
    int malformed = Utf8Bytes.firstMalformed(body);
    if (malformed >= 0) {
      throw new NotAPushRequestException("body is not UTF-8 at byte " + malformed);
    }
    Envelope envelope = new Envelope();
    try (JsonParser parser = JSON.createParser(body)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new NotAPushRequestException(
            "body is not a JSON object: expected a Pub/Sub push request");
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (field) {
          case "message" -> readMessage(parser, value, envelope);
          case "subscription" -> envelope.subscription = text(parser, value, "subscription");
          case "deliveryAttempt", "delivery_attempt" -> {
            if (value == JsonToken.VALUE_NUMBER_INT) {
              envelope.deliveryAttempt = parser.getIntValue();
            } else if (value != JsonToken.VALUE_NULL) {
              throw new NotAPushRequestException("deliveryAttempt is not a whole number");
            }
          }
          default -> parser.skipChildren();
        }
      }
      if (parser.nextToken() != null) {
        throw new NotAPushRequestException("trailing content after the push request");
      }
    } catch (IOException e) {
      throw new NotAPushRequestException(
          "body is not a valid push request: " + JsonPayloads.firstLine(e.getMessage()));
    }
    if (!envelope.hasMessage) {
      throw new NotAPushRequestException("no \"message\" object: not a Pub/Sub push request");
    }
    if (envelope.data == null && envelope.attributes.isEmpty()) {
      throw new NotAPushRequestException("message has neither data nor attributes");
    }
    return PubSubMessage.builder()
        .data(envelope.data == null ? new byte[0] : envelope.data)
        .attributes(envelope.attributes)
        .messageId(envelope.messageId)
        .publishTime(envelope.publishTime)
        .orderingKey(envelope.orderingKey)
        .subscription(envelope.subscription)
        .deliveryAttempt(envelope.deliveryAttempt)
        .build();
  }

  private static void readMessage(JsonParser parser, JsonToken start, Envelope envelope)
      throws IOException, NotAPushRequestException {
    if (start != JsonToken.START_OBJECT) {
      throw new NotAPushRequestException("\"message\" is not an object");
    }
    envelope.hasMessage = true;
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String field = parser.currentName();
      JsonToken value = parser.nextToken();
      switch (field) {
        case "data" -> {
          if (value == JsonToken.VALUE_STRING) {
            try {
              envelope.data = parser.getBinaryValue();
            } catch (IOException e) {
              throw new NotAPushRequestException("message.data is not valid base64");
            }
          } else if (value != JsonToken.VALUE_NULL) {
            throw new NotAPushRequestException("message.data is not a base64 string");
          }
        }
        case "attributes" -> readAttributes(parser, value, envelope.attributes);
        case "messageId", "message_id" -> envelope.messageId = text(parser, value, "messageId");
        case "publishTime", "publish_time" ->
            envelope.publishTime = text(parser, value, "publishTime");
        case "orderingKey", "ordering_key" ->
            envelope.orderingKey = text(parser, value, "orderingKey");
        default -> parser.skipChildren();
      }
    }
  }

  private static void readAttributes(JsonParser parser, JsonToken start, Map<String, String> into)
      throws IOException, NotAPushRequestException {
    if (start == JsonToken.VALUE_NULL) {
      return;
    }
    if (start != JsonToken.START_OBJECT) {
      throw new NotAPushRequestException("message.attributes is not an object");
    }
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String key = unicode(parser.currentName(), "a key of message.attributes");
      JsonToken value = parser.nextToken();
      if (value != JsonToken.VALUE_STRING) {
        throw new NotAPushRequestException("message.attributes." + key + " is not a string");
      }
      into.put(key, unicode(parser.getText(), "message.attributes." + key));
    }
  }

  private static String text(JsonParser parser, JsonToken value, String field)
      throws IOException, NotAPushRequestException {
    if (value == JsonToken.VALUE_NULL) {
      return null;
    }
    if (value != JsonToken.VALUE_STRING) {
      throw new NotAPushRequestException(field + " is not a string");
    }
    return unicode(parser.getText(), field);
  }

  /**
   * {@code text}, when it is Unicode text: a JSON escape can name half of a surrogate pair alone
   * ({@code "\\ud800"}), which no UTF-8 column or Pub/Sub attribute can hold. Pub/Sub never sends
   * one; taken in, it would fail the dead-letter INSERT of every message batched with it.
   */
  private static String unicode(String text, String field) throws NotAPushRequestException {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new NotAPushRequestException(
            String.format("%s has a lone UTF-16 surrogate \\u%04x: not text", field, (int) c));
      }
    }
    return text;
  }

  private static final class Envelope {
    boolean hasMessage;
    byte[] data;
    final Map<String, String> attributes = new HashMap<>();
    String messageId;
    String publishTime;
    String orderingKey;
    String subscription;
    Integer deliveryAttempt;
  }
}
