package dev.pubsubclickhouse.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;

/** Builds push requests the way Pub/Sub sends them, wrapped or unwrapped. */
final class PushRequests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final DriverOptions options;

  PushRequests(DriverOptions options) {
    this.options = options;
  }

  HttpRequest build(Delivery delivery, URI endpoint) {
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint).timeout(options.timeout());
    if (options.bearerToken() != null) {
      request.header("Authorization", "Bearer " + options.bearerToken());
    }
    String publishTime = Instant.now().toString();
    if (options.unwrapped()) {
      request.header("x-goog-pubsub-message-id", delivery.messageId());
      request.header("x-goog-pubsub-publish-time", publishTime);
      request.header("x-goog-pubsub-subscription-name", options.subscription());
      for (Map.Entry<String, String> attribute : delivery.attributes().entrySet()) {
        request.header(attribute.getKey(), attribute.getValue());
      }
      return request.POST(HttpRequest.BodyPublishers.ofByteArray(delivery.data())).build();
    }
    ObjectNode envelope = JSON.createObjectNode();
    ObjectNode message = envelope.putObject("message");
    message.put("data", Base64.getEncoder().encodeToString(delivery.data()));
    if (!delivery.attributes().isEmpty()) {
      ObjectNode attributes = message.putObject("attributes");
      delivery.attributes().forEach(attributes::put);
    }
    message.put("messageId", delivery.messageId());
    message.put("publishTime", publishTime);
    envelope.put("subscription", options.subscription());
    envelope.put("deliveryAttempt", delivery.attempt());
    return request
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(envelope.toString()))
        .build();
  }

  /** Pub/Sub's rule: these statuses acknowledge, everything else is a nack. */
  static boolean isAck(int status) {
    return status == 102 || status == 200 || status == 201 || status == 202 || status == 204;
  }

  /**
   * A dead-letter file line: id, attempts, last answer, data (text when UTF-8 JSON, else base64).
   */
  static String deadLetterLine(Delivery delivery, String lastAnswer) {
    ObjectNode line = JSON.createObjectNode();
    line.put("messageId", delivery.messageId());
    line.put("deliveryAttempts", delivery.attempt());
    line.put("lastAnswer", lastAnswer);
    line.put("data", Base64.getEncoder().encodeToString(delivery.data()));
    ObjectNode attributes = line.putObject("attributes");
    delivery.attributes().forEach(attributes::put);
    return line.toString();
  }
}
