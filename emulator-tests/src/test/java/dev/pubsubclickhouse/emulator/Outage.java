package dev.pubsubclickhouse.emulator;

import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.ServiceProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** A ClickHouse server that goes down for a few seconds while messages keep coming. */
final class Outage {
  private Outage() {}

  /**
   * Publishes {@code messages} to {@code topic} ten every 50 ms (about 1.5 s for 300) from a thread
   * of its own; once {@code stored} has 100 rows written, kills {@code server} (named {@code name}
   * in the service's log) and starts it again 3 s later. Returns the ids of every message
   * published.
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
    ExecutorService publisher = Executors.newSingleThreadExecutor();
    try {
      Future<List<String>> published =
          publisher.submit(
              () -> {
                List<String> ids = new ArrayList<>();
                for (int from = 0; from < messages.size(); from += 10) {
                  ids.addAll(pubsub.publish(topic, messages.subList(from, from + 10)));
                  Thread.sleep(50);
                }
                return ids;
              });
      stored.awaitAtLeast(100, Duration.ofSeconds(120));
      service.note("killing " + name);
      server.kill();
      Thread.sleep(3_000);
      server.start();
      service.note(name + " restarted");
      return published.get();
    } finally {
      publisher.shutdownNow();
    }
  }
}
