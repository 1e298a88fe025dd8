package dev.pubsubclickhouse.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.FaultInjectingProxy.Fault;
import dev.pubsubclickhouse.testing.PubSubEmulator;
import dev.pubsubclickhouse.testing.PubSubEmulatorTest;
import dev.pubsubclickhouse.testing.PubSubRest;
import dev.pubsubclickhouse.testing.PubSubRest.Message;
import dev.pubsubclickhouse.testing.PubSubRest.Received;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.Sql;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * An aggressive retry policy (1-2 s, 5 attempts: about 7 s of waits) rides out an 8-second
 * ClickHouse outage when each delivery attempt is held until ANSWER_TIMEOUT_MS: ClickHouse does not
 * answer, so the service gives up on the INSERT only at its answer deadline (5 s). README, "A
 * ClickHouse outage", gives this and what answering at once costs under the same policy.
 */
@ClickHouseTest
@PubSubEmulatorTest
class OutageBudgetThroughEmulatorIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MESSAGES = 100;
  private static final Duration OUTAGE = Duration.ofSeconds(8);
  private static final Duration SETTLED = Duration.ofSeconds(120);

  private final TestDatabase database;
  private final Sql sql;
  private final PubSubRest pubsub;

  OutageBudgetThroughEmulatorIT(TestDatabase database, PubSubEmulator emulator) {
    this.database = database;
    this.sql = Sql.of(database);
    this.pubsub = emulator.rest("emulator-tests");
  }

  @Test
  void pushesHeldUntilTheirAnswerDeadlineRideOutAnOutageLongerThanTheRetryPolicysWaits()
      throws Exception {
    String name = "outage_held";
    Stored.createTarget(sql, name);
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url())) {
      Map<String, String> env = Services.writing(database.server(), database.name(), name);
      env.put("CLICKHOUSE_URL", proxy.url());
      // An INSERT that gets no answer is given up only at ANSWER_TIMEOUT_MS (5 s): the push is
      // held.
      env.put("INSERT_TIMEOUT_MS", "8000");
      ServiceProcess service = Services.start(name, env);
      try {
        pubsub.createTopic(name);
        pubsub.createTopic(name + "-dead");
        String deadPull = pubsub.subscription(name + "-dead-pull", name + "-dead").create();
        String push =
            pubsub
                .subscription(name + "-push", name)
                .pushTo(service.url())
                .ackDeadlineSeconds(10)
                .retryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(2))
                .deadLetters(name + "-dead", 5)
                .create();
        List<Message> messages = new ArrayList<>();
        for (int id = 1; id <= MESSAGES; id++) {
          messages.add(Events.one(id));
        }
        proxy.failInserts(Fault.NO_ANSWER);
        long outageStart = System.nanoTime();
        List<String> ids = pubsub.publish(name, messages);
        Thread.sleep(
            Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - outageStart) / 1_000_000));
        proxy.heal();

        Set<Long> stored = new HashSet<>();
        Set<Long> deadLettered = new HashSet<>();
        long deadline = System.nanoTime() + SETTLED.toNanos();
        while (stored.size() + deadLettered.size() < MESSAGES && System.nanoTime() < deadline) {
          List<Received> pulled = pubsub.pull(deadPull, 100);
          for (Received message : pulled) {
            deadLettered.add(JSON.readTree(message.text()).get("id").asLong());
          }
          pubsub.acknowledge(deadPull, pulled);
          stored.clear();
          for (String id : sql.query("SELECT DISTINCT id FROM " + name).lines().toList()) {
            if (!id.isBlank()) {
              stored.add(Long.parseLong(id));
            }
          }
          Thread.sleep(500);
        }
        System.out.printf(
            "outage budget, held: %d stored, %d dead-lettered%n",
            stored.size(), deadLettered.size());
        assertThat(deadLettered).as("dead-lettered").isEmpty();
        new Stored(sql, name)
            .assertHoldsExactly(
                Events.expectedRows(pubsub.subscriptionPath(push), ids, messages, false));
      } finally {
        Services.stop(service);
      }
    }
  }
}
