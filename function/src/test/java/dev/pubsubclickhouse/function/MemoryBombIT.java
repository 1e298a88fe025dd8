package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.PushClient;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Compressed messages that expand to just under MAX_DECOMPRESSED_BYTES of valid JSON, sent by many
 * clients at once beside good messages, against the service jar with the deployed heap ({@code
 * -XX:MaxRAM=512m -XX:MaxRAMPercentage=50}: 256 MiB). The bombs get 429 while the memory they would
 * need is taken (or are read alone); no OutOfMemoryError; every good message is answered 2xx, after
 * the redeliveries a 429 asks for, and stored as sent.
 */
@ClickHouseTest
class MemoryBombIT {
  private static final int BOMB_CLIENTS = 16;
  private static final int GOOD_CLIENTS = 4;
  private static final int GOOD_PER_CLIENT = 25;
  private static final Duration BOMBING = Duration.ofSeconds(15);

  /** A bomb's text: its data is just under MAX_DECOMPRESSED_BYTES (16 MiB). */
  private static final int BOMB_TEXT = (16 << 20) - 1024;

  /**
   * A bomb refused is sent again after this: Pub/Sub's backoff is longer (10 s at first by
   * default), but a flood of many bombs comes back this often.
   */
  private static final long BOMB_BACKOFF_MILLIS = 100;

  private static final PushClient PUSH = new PushClient(4);

  private final TestDatabase database;

  MemoryBombIT(TestDatabase database) {
    this.database = database;
  }

  /**
   * One row whose string fills the data to just under the cap: a JSON parse holds the text several
   * times over while it reads it (about 6 bytes per byte).
   */
  private static byte[] bombData(String id) {
    return ("{\"id\":\"" + id + "\",\"n\":0,\"s\":\"" + "x".repeat(BOMB_TEXT) + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(data);
    }
    return out.toByteArray();
  }

  private static byte[] envelope(String id, byte[] data) {
    return ("{\"message\":{\"data\":\""
            + Base64.getEncoder().encodeToString(data)
            + "\",\"messageId\":\""
            + id
            + "\"},\"subscription\":\"projects/p/subscriptions/s\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static int post(URI url, byte[] body) {
    try {
      return PUSH.post(url, body);
    } catch (IOException e) {
      return -1; // to Pub/Sub a nack, like a 5xx
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  @Test
  void compressedBombsBesideGoodMessagesRunNoHeapOutAndEveryGoodMessageIsStored() throws Exception {
    database.execute(
        "CREATE TABLE bombed (id String, n Int64, s String) ENGINE = MergeTree ORDER BY id");
    byte[] gzipBomb = envelope("gzip-bomb", gzip(bombData("gzip-bomb")));
    byte[] zstdBomb = envelope("zstd-bomb", Zstd.compress(bombData("zstd-bomb"), 19));
    assertThat(gzipBomb.length).as("a gzip bomb's request").isLessThan(32 * 1024);
    assertThat(zstdBomb.length).as("a zstd bomb's request").isLessThan(2 * 1024);

    Path work = Files.createDirectories(Path.of("target", "memory-bomb"));
    Map<Integer, LongAdder> bombAnswers = new ConcurrentHashMap<>();
    Map<Integer, LongAdder> goodAnswers = new ConcurrentHashMap<>();
    Map<String, Integer> goodLastAnswers = new ConcurrentHashMap<>();
    try (ServiceProcess service =
        new ServiceProcess(
                Map.of(
                    "CLICKHOUSE_URL", database.server().url(),
                    "CLICKHOUSE_USER", database.server().user(),
                    "CLICKHOUSE_PASSWORD", database.server().password(),
                    "CLICKHOUSE_DATABASE", database.name(),
                    "CLICKHOUSE_TABLE", "bombed"),
                List.of(
                    "-XX:MaxRAM=512m",
                    "-XX:MaxRAMPercentage=50",
                    "-XX:+ExitOnOutOfMemoryError",
                    "-Xlog:gc:file=" + work.resolve("gc.log")),
                work.resolve("service.log"),
                LocalClickHouse.freePort())
            .start()) {
      AtomicBoolean bombing = new AtomicBoolean(true);
      ExecutorService pool = Executors.newFixedThreadPool(BOMB_CLIENTS + GOOD_CLIENTS);
      List<Future<?>> bombers = new ArrayList<>();
      for (int c = 0; c < BOMB_CLIENTS; c++) {
        byte[] bomb = c % 2 == 0 ? gzipBomb : zstdBomb;
        bombers.add(
            pool.submit(
                () -> {
                  while (bombing.get() && service.alive()) {
                    count(bombAnswers, post(service.url(), bomb));
                    sleep(BOMB_BACKOFF_MILLIS);
                  }
                }));
      }
      List<Future<?>> good = new ArrayList<>();
      for (int c = 0; c < GOOD_CLIENTS; c++) {
        int client = c;
        good.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < GOOD_PER_CLIENT; i++) {
                    String id = "good-" + client + "-" + i;
                    byte[] body =
                        envelope(
                            id,
                            ("{\"id\":\"" + id + "\",\"n\":" + n(client, i) + ",\"s\":\"ok\"}")
                                .getBytes(StandardCharsets.UTF_8));
                    // As Pub/Sub does: a non-2xx answer is delivered again, after a short backoff.
                    long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    int status;
                    do {
                      status = post(service.url(), body);
                      count(goodAnswers, status);
                      if (status / 100 != 2) {
                        sleep(100);
                      }
                    } while (status / 100 != 2 && System.nanoTime() < giveUp && service.alive());
                    goodLastAnswers.put(id, status);
                    sleep(BOMBING.toMillis() / GOOD_PER_CLIENT);
                  }
                }));
      }
      for (Future<?> client : good) {
        client.get(90, TimeUnit.SECONDS);
      }
      bombing.set(false);
      for (Future<?> bomber : bombers) {
        bomber.get(90, TimeUnit.SECONDS);
      }
      pool.shutdown();

      Map<Integer, Long> bombs = sums(bombAnswers);
      Map<Integer, Long> goods = sums(goodAnswers);
      System.out.println("answers to bombs: " + bombs + "; to good messages: " + goods);
      assertThat(Files.readString(work.resolve("service.log")))
          .as("the service's log")
          .doesNotContain("OutOfMemoryError");
      assertThat(service.alive()).as("the service is alive").isTrue();
      assertThat(bombs).as("answers to bombs").containsKey(429);
      assertThat(bombs.keySet())
          .as("answers to bombs: refused for now, stored alone, or refused as data; never a 5xx")
          .allMatch(status -> status == 204 || status == 422 || status == 429);
      assertThat(goodLastAnswers).hasSize(GOOD_CLIENTS * GOOD_PER_CLIENT);
      assertThat(goodLastAnswers.values()).as("good messages' last answers").containsOnly(204);
    }
    StringBuilder expected = new StringBuilder();
    for (int c = 0; c < GOOD_CLIENTS; c++) {
      for (int i = 0; i < GOOD_PER_CLIENT; i++) {
        expected.append("good-" + c + "-" + i + "\t" + n(c, i) + "\tok\n");
      }
    }
    assertThat(database.query("SELECT id, n, s FROM bombed WHERE id LIKE 'good-%' ORDER BY n"))
        .isEqualTo(expected.toString().strip());
    assertThat(
            database.query(
                "SELECT count() FROM bombed WHERE id NOT LIKE 'good-%'"
                    + " AND (n != 0 OR length(s) != "
                    + BOMB_TEXT
                    + " OR replaceAll(s, 'x', '') != '')"))
        .as("a bomb stored (read alone) is stored whole")
        .isEqualTo("0");
  }

  private static int n(int client, int i) {
    return client * 1000 + i;
  }

  private static void count(Map<Integer, LongAdder> answers, int status) {
    answers.computeIfAbsent(status, s -> new LongAdder()).increment();
  }

  private static Map<Integer, Long> sums(Map<Integer, LongAdder> answers) {
    Map<Integer, Long> sums = new TreeMap<>();
    answers.forEach((status, count) -> sums.put(status, count.sum()));
    return sums;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
