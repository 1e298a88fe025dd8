package dev.pubsubclickhouse.function.pull;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.api.core.ApiFuture;
import com.google.api.core.ApiFutures;
import com.google.cloud.pubsub.v1.AckReplyConsumerWithResponse;
import com.google.cloud.pubsub.v1.AckResponse;
import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import com.google.pubsub.v1.PubsubMessage;
import dev.pubsubclickhouse.function.PushConfig;
import dev.pubsubclickhouse.function.PushService;
import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A pulled message's answer at shutdown says what happened to its rows: acked only when they are
 * stored, nacked only when they are not, against the real ClickHouse behind a proxy that holds the
 * INSERT.
 */
@ClickHouseTest
class PullShutdownIT {
  private static final String SUBSCRIPTION = "projects/p/subscriptions/held";
  private static final Duration GRACE = Duration.ofSeconds(6);

  private final TestDatabase database;

  PullShutdownIT(TestDatabase database) {
    this.database = database;
  }

  /**
   * The INSERT lands shortly before the service stops writing (and so before the client library
   * stops waiting): the message is answered by its INSERT, not nacked while its row is stored,
   * which Pub/Sub would deliver and the service write again.
   */
  @Test
  void anInsertThatLandsBeforeTheLastAnswerIsDueIsAckedNotNacked() throws Exception {
    database.execute("CREATE TABLE held (message String) ENGINE = MergeTree ORDER BY message");
    ShutdownTimeline timeline = new ShutdownTimeline(GRACE);
    Duration writing = timeline.serviceWriting();
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      PushService service = PushService.start(PushConfig.read(environment(proxy.url())));
      assertThat(service.awaitReady(Duration.ofSeconds(60))).isTrue();
      // Lands shortly before the service stops writing.
      proxy.slowInserts(writing.minusMillis(400));
      CompletableFuture<String> reply = new CompletableFuture<>();
      Thread receiving =
          new Thread(
              () ->
                  new PullReceiver(service, SUBSCRIPTION).receiveMessage(pulled(), replyTo(reply)));
      receiving.start();
      long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (service.metrics().snapshot().getOrDefault("waiting-requests", 0L) < 1
          && System.nanoTime() < waitUntil) {
        Thread.sleep(5);
      }
      assertThat(service.metrics().snapshot().get("waiting-requests"))
          .as("the message waits for its INSERT, which the proxy holds")
          .isEqualTo(1L);
      Thread.sleep(100);
      PullSubscriber.stopService(service, timeline);
      String answer = reply.get(writing.toSeconds() + 5, TimeUnit.SECONDS);
      receiving.join(10_000);
      Thread.sleep(writing.toMillis()); // whatever the proxy still holds has landed
      String stored = database.query("SELECT message FROM held FORMAT TSV").strip();

      assertThat(answer + ", stored: [" + stored + "]")
          .as("a message's answer agrees with what ClickHouse holds")
          .isIn("ack, stored: [kept once]", "nack, stored: []");
    }
  }

  private Map<String, String> environment(String clickHouseUrl) {
    ClickHouseServer server = database.server();
    Map<String, String> env =
        new ClickHouseServer(clickHouseUrl, server.user(), server.password())
            .environment(database.name());
    env.put("CLICKHOUSE_TABLE", "held");
    env.put("SUMMARY_INTERVAL_SECONDS", "3600");
    env.put("ANSWER_TIMEOUT_MS", "20000");
    env.put("INSERT_TIMEOUT_MS", "20000");
    env.put("PUBSUB_SUBSCRIPTION", SUBSCRIPTION);
    env.put("SHUTDOWN_GRACE_SECONDS", Long.toString(GRACE.toSeconds()));
    return env;
  }

  private static PubsubMessage pulled() {
    return PubsubMessage.newBuilder()
        .setMessageId("m-1")
        .setPublishTime(Timestamp.newBuilder().setSeconds(1_700_000_000L))
        .setData(ByteString.copyFrom("{\"message\":\"kept once\"}", StandardCharsets.UTF_8))
        .build();
  }

  private static AckReplyConsumerWithResponse replyTo(CompletableFuture<String> reply) {
    return new AckReplyConsumerWithResponse() {
      @Override
      public ApiFuture<AckResponse> ack() {
        reply.complete("ack");
        return ApiFutures.immediateFuture(AckResponse.SUCCESSFUL);
      }

      @Override
      public ApiFuture<AckResponse> nack() {
        reply.complete("nack");
        return ApiFutures.immediateFuture(AckResponse.SUCCESSFUL);
      }
    };
  }
}
