package dev.pubsubclickhouse.emulator;

import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** A ClickHouse server that goes down for a few seconds while messages keep coming. */
final class Outage {
  private static final Duration DOWN = Duration.ofSeconds(3);

  private Outage() {}

  /**
   * A ClickHouse server of the test's own, so that killing it stops no other test's server, with
   * the target table in the exactly-once layout in its default database.
   */
  static final class OwnClickHouse implements AutoCloseable {
    private final LocalClickHouse clickHouse;
    final ClickHouseServer server;
    final Stored target;

    /** Starts the server in {@code directory} and creates {@code table} in it. */
    OwnClickHouse(Path directory, String table) {
      clickHouse = LocalClickHouse.start(directory.resolve("clickhouse"));
      try {
        server = new ClickHouseServer(clickHouse.url(), "default", "");
        target =
            Stored.createTarget(
                new Sql(server.url(), server.user(), server.password(), "default"), table);
      } catch (RuntimeException e) {
        clickHouse.stop();
        throw e;
      }
    }

    /** {@link Outage#publishWhileDown} with this server as the one that goes down. */
    List<String> publishWhileDown(
        PubSubRest pubsub, String topic, List<Message> messages, ServiceProcess service)
        throws Exception {
      return Outage.publishWhileDown(
          pubsub, topic, messages, target, clickHouse, "ClickHouse", service);
    }

    @Override
    public void close() {
      clickHouse.stop();
    }
  }

  /**
   * Publishes the first third of {@code messages} to {@code topic} from a thread of its own; once
   * {@code stored} has 60 rows written (the first third must make that many), kills {@code server}
   * (named {@code name} in the service's log), most often while INSERTs of that third are in
   * flight; then publishes the second third while it is down (always), starts it again 3 s after
   * the kill and publishes the rest. Each third goes ten messages every 50 ms. Returns the ids of
   * every message published.
   */
  static List<String> publishWhileDown(
      PubSubRest pubsub,
      String topic,
      List<Message> messages,
      Stored stored,
      LocalClickHouse server,
      String name,
      ServiceProcess service)
      throws Exception {
    int third = messages.size() / 3;
    ExecutorService publisher = Executors.newSingleThreadExecutor();
    List<String> ids = new ArrayList<>();
    try {
      Future<List<String>> first =
          publisher.submit(() -> publish(pubsub, topic, messages.subList(0, third)));
      stored.awaitAtLeast(60, Duration.ofSeconds(120));
      service.note("killing " + name);
      server.kill();
      long killed = System.nanoTime();
      ids.addAll(first.get());
      ids.addAll(publish(pubsub, topic, messages.subList(third, 2 * third)));
      service.note("published " + third + " messages while " + name + " was down");
      Thread.sleep(Math.max(0, (DOWN.toNanos() - (System.nanoTime() - killed)) / 1_000_000));
    } finally {
      publisher.shutdownNow();
    }
    server.start();
    service.note(name + " restarted");
    ids.addAll(publish(pubsub, topic, messages.subList(2 * third, messages.size())));
    return ids;
  }

  private static List<String> publish(PubSubRest pubsub, String topic, List<Message> messages)
      throws Exception {
    List<String> ids = new ArrayList<>();
    for (int from = 0; from < messages.size(); from += 10) {
      ids.addAll(
          pubsub.publish(topic, messages.subList(from, Math.min(from + 10, messages.size()))));
      Thread.sleep(50);
    }
    return ids;
  }
}
