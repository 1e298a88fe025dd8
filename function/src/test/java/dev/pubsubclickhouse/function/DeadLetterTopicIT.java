package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.pubsub.v1.PublishRequest;
import com.google.pubsub.v1.PublishResponse;
import com.google.pubsub.v1.PublisherGrpc;
import com.google.pubsub.v1.PubsubMessage;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter topic, with a fake of Pub/Sub's Publisher gRPC service (Pub/Sub itself cannot be
 * reached from here) and the real ClickHouse for everything else.
 */
@ClickHouseTest
class DeadLetterTopicIT {
  private final TestDatabase database;

  DeadLetterTopicIT(TestDatabase database) {
    this.database = database;
  }

  /** Records what is published; can be told to fail. */
  private static final class FakePublisher extends PublisherGrpc.PublisherImplBase {
    final List<PublishRequest> requests = new CopyOnWriteArrayList<>();
    final AtomicBoolean failing = new AtomicBoolean();

    @Override
    public void publish(PublishRequest request, StreamObserver<PublishResponse> response) {
      if (failing.get()) {
        response.onError(Status.UNAVAILABLE.withDescription("injected").asRuntimeException());
        return;
      }
      requests.add(request);
      PublishResponse.Builder ids = PublishResponse.newBuilder();
      for (int i = 0; i < request.getMessagesCount(); i++) {
        ids.addMessageIds("dl-" + requests.size() + "-" + i);
      }
      response.onNext(ids.build());
      response.onCompleted();
    }
  }

  @Test
  void aBadMessageIsRepublishedWithItsAttributesAndTheReason() throws Exception {
    database.execute("CREATE TABLE topic_logs (n UInt8) ENGINE = MergeTree ORDER BY n");
    FakePublisher publisher = new FakePublisher();
    Server grpc =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(publisher)
            .build()
            .start();
    try (RunningService service =
        RunningService.start(
            database,
            "topic_logs",
            Map.of(
                "DEAD_LETTER_TOPIC", "projects/test/topics/dead-letter",
                "PUBSUB_ENDPOINT", "127.0.0.1:" + grpc.getPort(),
                "MAX_RETRIES", "0"))) {
      assertThat(
              service.push(
                  "bad-1",
                  "{\"n\":300}".getBytes(StandardCharsets.UTF_8),
                  Map.of("origin", "sensor-7")))
          .isEqualTo(204);
      assertThat(service.push("good-1", "{\"n\":3}")).isEqualTo(204);
      publisher.failing.set(true);
      assertThat(service.push("bad-2", "{\"n\":-1}")).isEqualTo(503);
    } finally {
      grpc.shutdownNow();
    }
    assertThat(publisher.requests).hasSize(1);
    PublishRequest request = publisher.requests.get(0);
    assertThat(request.getTopic()).isEqualTo("projects/test/topics/dead-letter");
    PubsubMessage message = request.getMessages(0);
    assertThat(message.getData().toStringUtf8()).isEqualTo("{\"n\":300}");
    assertThat(message.getAttributesMap())
        .containsEntry("origin", "sensor-7")
        .containsEntry("errorMessage", "column 'n' (UInt8) rejects 300: out of range [0, 255]")
        .containsKey("failedAt");
    assertThat(database.query("SELECT n FROM topic_logs")).isEqualTo("3");
  }
}
