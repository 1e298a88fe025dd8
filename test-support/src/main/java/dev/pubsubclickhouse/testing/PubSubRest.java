package dev.pubsubclickhouse.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Pub/Sub's REST API (v1) for one project, as the emulator serves it: create and delete topics and
 * subscriptions (push, with or without the wrapper, dead-letter policy, ordering), publish, pull,
 * acknowledge and seek. Independent of the service under test and of the client library it uses.
 */
public final class PubSubRest {
  /** Pub/Sub takes at most 1,000 messages in one publish request. */
  private static final int MAX_PUBLISH_BATCH = 1_000;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private final String base;
  private final String project;

  /** The REST API at {@code endpoint} (e.g. {@code http://127.0.0.1:8085}) for one project. */
  public PubSubRest(String endpoint, String project) {
    this.base = endpoint + "/v1/projects/" + project;
    this.project = project;
  }

  /** A message to publish: data, attributes and an ordering key (empty: none). */
  public record Message(byte[] data, Map<String, String> attributes, String orderingKey) {
    public static Message of(String data) {
      return new Message(data.getBytes(StandardCharsets.UTF_8), Map.of(), "");
    }

    public Message withAttributes(Map<String, String> attributes) {
      return new Message(data, Map.copyOf(attributes), orderingKey);
    }

    public Message withOrderingKey(String key) {
      return new Message(data, attributes, key);
    }

    public String text() {
      return new String(data, StandardCharsets.UTF_8);
    }
  }

  /** A message as a pull returns it; {@code orderingKey} empty when it has none. */
  public record Received(
      String messageId,
      byte[] data,
      Map<String, String> attributes,
      String publishTime,
      String orderingKey,
      String ackId) {
    public String text() {
      return new String(data, StandardCharsets.UTF_8);
    }
  }

  public String project() {
    return project;
  }

  /** {@code projects/P/topics/T}. */
  public String topicPath(String topic) {
    return "projects/" + project + "/topics/" + topic;
  }

  /** {@code projects/P/subscriptions/S}. */
  public String subscriptionPath(String subscription) {
    return "projects/" + project + "/subscriptions/" + subscription;
  }

  public void createTopic(String topic) {
    send("PUT", "/topics/" + topic, JSON.createObjectNode());
  }

  /**
   * Creates a schema ({@code AVRO}; the emulator does not implement {@code PROTOCOL_BUFFER}) and
   * returns its first revision's id.
   */
  public String createSchema(String schema, String type, String definition) {
    ObjectNode body = JSON.createObjectNode();
    body.put("type", type);
    body.put("definition", definition);
    return send("POST", "/schemas?schemaId=" + schema, body).path("revisionId").asText();
  }

  /**
   * A topic whose messages must fit the schema in the encoding ({@code JSON} or {@code BINARY}).
   */
  public void createTopic(String topic, String schema, String encoding) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode settings = body.putObject("schemaSettings");
    settings.put("schema", "projects/" + project + "/schemas/" + schema);
    settings.put("encoding", encoding);
    send("PUT", "/topics/" + topic, body);
  }

  public void deleteTopic(String topic) {
    send("DELETE", "/topics/" + topic, null);
  }

  /** A subscription to be created: a pull one unless {@link Subscription#pushTo} is called. */
  public Subscription subscription(String name, String topic) {
    return new Subscription(name, topic);
  }

  public void deleteSubscription(String subscription) {
    send("DELETE", "/subscriptions/" + subscription, null);
  }

  /** Publishes the messages in order (1,000 per request); returns their message ids in order. */
  public List<String> publish(String topic, List<Message> messages) {
    List<String> ids = new ArrayList<>(messages.size());
    for (int from = 0; from < messages.size(); from += MAX_PUBLISH_BATCH) {
      ObjectNode request = JSON.createObjectNode();
      ArrayNode array = request.putArray("messages");
      for (Message message :
          messages.subList(from, Math.min(messages.size(), from + MAX_PUBLISH_BATCH))) {
        ObjectNode m = array.addObject();
        m.put("data", Base64.getEncoder().encodeToString(message.data()));
        if (!message.attributes().isEmpty()) {
          ObjectNode attributes = m.putObject("attributes");
          message.attributes().forEach(attributes::put);
        }
        if (!message.orderingKey().isEmpty()) {
          m.put("orderingKey", message.orderingKey());
        }
      }
      for (JsonNode id :
          send("POST", "/topics/" + topic + ":publish", request).path("messageIds")) {
        ids.add(id.asText());
      }
    }
    return ids;
  }

  /** Pulls what is there now (at most {@code max}) without waiting, and does not acknowledge it. */
  public List<Received> pull(String subscription, int max) {
    ObjectNode request =
        JSON.createObjectNode().put("maxMessages", max).put("returnImmediately", true);
    List<Received> received = new ArrayList<>();
    for (JsonNode r :
        send("POST", "/subscriptions/" + subscription + ":pull", request)
            .path("receivedMessages")) {
      JsonNode m = r.path("message");
      received.add(
          new Received(
              m.path("messageId").asText(),
              Base64.getDecoder().decode(m.path("data").asText("")),
              JsonValues.texts(m.path("attributes")),
              m.path("publishTime").asText(),
              m.path("orderingKey").asText(""),
              r.path("ackId").asText()));
    }
    return received;
  }

  public void acknowledge(String subscription, List<Received> messages) {
    if (messages.isEmpty()) {
      return;
    }
    ObjectNode request = JSON.createObjectNode();
    ArrayNode ids = request.putArray("ackIds");
    messages.forEach(m -> ids.add(m.ackId()));
    send("POST", "/subscriptions/" + subscription + ":acknowledge", request);
  }

  /** Hands pulled messages back unacknowledged (ack deadline 0): they can be pulled again now. */
  public void handBack(String subscription, List<Received> messages) {
    if (messages.isEmpty()) {
      return;
    }
    ObjectNode request = JSON.createObjectNode().put("ackDeadlineSeconds", 0);
    ArrayNode ids = request.putArray("ackIds");
    messages.forEach(m -> ids.add(m.ackId()));
    send("POST", "/subscriptions/" + subscription + ":modifyAckDeadline", request);
  }

  /**
   * Pulls and acknowledges until {@code count} messages have arrived or {@code timeout} passed;
   * returns what arrived (fewer on timeout), so that a test can say which are missing.
   */
  public List<Received> pullUntil(String subscription, int count, Duration timeout)
      throws InterruptedException {
    List<Received> all = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (all.size() < count && System.nanoTime() < deadline) {
      List<Received> batch = pull(subscription, 100);
      acknowledge(subscription, batch);
      all.addAll(batch);
      if (batch.isEmpty()) {
        Thread.sleep(200);
      }
    }
    return all;
  }

  /**
   * Marks every message published after {@code time} unacknowledged again: they are redelivered.
   */
  public void seek(String subscription, Instant time) {
    send(
        "POST",
        "/subscriptions/" + subscription + ":seek",
        JSON.createObjectNode().put("time", time.toString()));
  }

  /** A subscription's settings; {@link #create()} sends them. */
  public final class Subscription {
    private final String name;
    private final ObjectNode body = JSON.createObjectNode();

    private Subscription(String name, String topic) {
      this.name = name;
      body.put("topic", topicPath(topic));
    }

    /** Push to {@code endpoint}, wrapped (the default body shape). */
    public Subscription pushTo(URI endpoint) {
      body.putObject("pushConfig").put("pushEndpoint", endpoint.toString());
      return this;
    }

    /** Push unwrapped ({@code no_wrapper}) with {@code write_metadata}: metadata in headers. */
    public Subscription unwrapped() {
      ((ObjectNode) body.path("pushConfig")).putObject("noWrapper").put("writeMetadata", true);
      return this;
    }

    /** After {@code maxDeliveryAttempts} (5 to 100) nacks, Pub/Sub moves a message to the topic. */
    public Subscription deadLetters(String topic, int maxDeliveryAttempts) {
      body.putObject("deadLetterPolicy")
          .put("deadLetterTopic", topicPath(topic))
          .put("maxDeliveryAttempts", maxDeliveryAttempts);
      return this;
    }

    public Subscription ordered() {
      body.put("enableMessageOrdering", true);
      return this;
    }

    /** Exactly-once delivery: an ack counts only when Pub/Sub confirms it. */
    public Subscription exactlyOnce() {
      body.put("enableExactlyOnceDelivery", true);
      return this;
    }

    /** Keeps acknowledged messages, so that {@link #seek} can deliver them again. */
    public Subscription retainAcked() {
      body.put("retainAckedMessages", true);
      return this;
    }

    /** Redeliveries wait from {@code minimum} doubling up to {@code maximum} (whole seconds). */
    public Subscription retryPolicy(Duration minimum, Duration maximum) {
      body.putObject("retryPolicy")
          .put("minimumBackoff", minimum.toSeconds() + "s")
          .put("maximumBackoff", maximum.toSeconds() + "s");
      return this;
    }

    public Subscription ackDeadlineSeconds(int seconds) {
      body.put("ackDeadlineSeconds", seconds);
      return this;
    }

    public String create() {
      send("PUT", "/subscriptions/" + name, body);
      return name;
    }
  }

  private JsonNode send(String method, String path, JsonNode body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body.toString()));
    try {
      HttpResponse<String> response =
          HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            method + " " + path + ": HTTP " + response.statusCode() + " " + response.body());
      }
      return response.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IllegalStateException(method + " " + path + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
