package dev.pubsubclickhouse.replay.subscription;

import com.google.pubsub.v1.SubscriptionName;
import com.google.pubsub.v1.TopicName;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.replay.ExitCode;
import dev.pubsubclickhouse.replay.ReplayCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code replay.jar subscription}: the Pub/Sub side. */
@Command(
    name = "subscription",
    description = {
      "Replay dead letters from a dead-letter subscription to the source topic, with their data,"
          + " attributes and ordering key as published; each is acknowledged only once its copy"
          + " is published. Left out: the CloudPubSubDeadLetterSource* attributes Pub/Sub's"
          + " dead-letter policy adds, and the ones the service's dead-letter topic adds and names"
          + " in deadLetterAdded (errorMessage, failedAt, orderingKey, which becomes the ordering"
          + " key again, deadLetterAdded).",
      "",
      "--failedAfter/--failedBefore compare the time a message reached the dead-letter topic;"
          + " --errorContains the service's errorMessage; --messageId the id in the dead-letter"
          + " subscription. Messages a run does not republish are held while it runs and then"
          + " handed back. Google's Pub/Sub with Application Default Credentials, or an emulator"
          + " (--pubsubEndpoint, PUBSUB_ENDPOINT or PUBSUB_EMULATOR_HOST).",
      ""
    })
public final class SubscriptionCommand extends ReplayCommand {
  @Option(
      names = "--subscription",
      required = true,
      paramLabel = "projects/P/subscriptions/S",
      description = "The dead-letter subscription to replay from.")
  String subscription;

  @Option(
      names = "--topic",
      required = true,
      paramLabel = "projects/P/topics/T",
      description = "The topic to publish to: the one the push subscription reads.")
  String topic;

  @Option(
      names = "--pubsubEndpoint",
      paramLabel = "HOST:PORT",
      description =
          "An emulator, in plaintext without credentials. Default: PUBSUB_ENDPOINT, else"
              + " PUBSUB_EMULATOR_HOST, else Google's Pub/Sub.")
  String endpoint;

  @Option(
      names = "--dropAttribute",
      paramLabel = "NAME",
      split = ",",
      description =
          "Also leave out this attribute (repeat or separate by commas), e.g. errorMessage,failedAt"
              + " for dead letters published before deadLetterAdded existed.")
  List<String> dropAttributes;

  @Option(
      names = "--batchSize",
      paramLabel = "N",
      defaultValue = "100",
      description = "Messages per pull (1 to 1000). Default: ${DEFAULT-VALUE}.")
  int batchSize;

  @Option(
      names = "--waitSeconds",
      paramLabel = "S",
      defaultValue = "10",
      description =
          "The run ends when a pull brings nothing for S seconds (1 to 600). Default:"
              + " ${DEFAULT-VALUE}.")
  int waitSeconds;

  public SubscriptionCommand(Map<String, String> environment, PrintStream out) {
    super(environment, out);
  }

  @Override
  public Integer call() throws InterruptedException {
    SubscriptionName from;
    TopicName to;
    SubscriptionReplay.Settings settings;
    try {
      from = subscriptionName(subscription);
      to = topicName(topic);
      if (batchSize < 1 || batchSize > 1000) {
        throw new IllegalArgumentException("--batchSize must be between 1 and 1000");
      }
      if (waitSeconds < 1 || waitSeconds > 600) {
        throw new IllegalArgumentException("--waitSeconds must be between 1 and 600");
      }
      settings =
          SubscriptionReplay.Settings.builder()
              .filter(common.filter())
              .dryRun(common.dryRun())
              .batchSize(batchSize)
              .limit(common.limit())
              .rate(common.rateLimit())
              .pullWait(Duration.ofSeconds(waitSeconds))
              .dropAttributes(
                  dropAttributes == null
                      ? Set.of()
                      : Set.copyOf(dropAttributes.stream().map(String::trim).toList()))
              .build();
    } catch (IllegalArgumentException e) {
      return usage(e);
    }
    PubSubClients clients;
    try {
      clients = PubSubClients.open(endpoint(), to);
    } catch (IOException | RuntimeException e) {
      JsonLog.error("replay: cannot reach Pub/Sub: " + SubscriptionReplay.describe(e), Map.of());
      return ExitCode.FAILED;
    }
    try {
      return new SubscriptionReplay(clients, from, to, settings, out).run();
    } finally {
      clients.close();
    }
  }

  private String endpoint() {
    if (endpoint != null && !endpoint.isBlank()) {
      return endpoint.trim();
    }
    for (String variable : List.of("PUBSUB_ENDPOINT", "PUBSUB_EMULATOR_HOST")) {
      String value = environment.get(variable);
      if (value != null && !value.isBlank()) {
        return value.trim();
      }
    }
    return null;
  }

  private static SubscriptionName subscriptionName(String name) {
    if (!name.matches("projects/[^/]+/subscriptions/[^/]+")) {
      throw new IllegalArgumentException(
          "--subscription: expected projects/P/subscriptions/S, got '" + name + "'");
    }
    return SubscriptionName.parse(name);
  }

  private static TopicName topicName(String name) {
    if (!name.matches("projects/[^/]+/topics/[^/]+")) {
      throw new IllegalArgumentException(
          "--topic: expected projects/P/topics/T, got '" + name + "'");
    }
    return TopicName.parse(name);
  }
}
