package dev.pubsubclickhouse.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.FaultInjectingProxy;
import dev.pubsubclickhouse.testing.LocalClickHouse;
import dev.pubsubclickhouse.testing.PushClient;
import dev.pubsubclickhouse.testing.ServiceJava;
import dev.pubsubclickhouse.testing.ServiceProcess;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Far more concurrency than the service admits, against the service jar with a 512 MiB heap (the
 * Cloud Run default of 512 MiB memory gives about 384 MiB): requests beyond the bounds get 429 at
 * once, nothing runs out of memory, the heap stays within the stated bound, and the service answers
 * normally afterwards. ClickHouse is made slow (every INSERT held 1 s) so that requests pile up.
 *
 * <p>The bound: requests in progress hold at most MAX_PENDING_BYTES, counted as 4 bytes per body
 * byte from before the body is read until the answer (a body is held as bytes, as decoded data, as
 * a JSON tree and as encoded rows), and at most MAX_PENDING_MESSAGES wait for a batch.
 */
@ClickHouseTest
class OverloadIT {
  private static final long HEAP_MIB = 512;

  /**
   * The live heap (after a full collection, sampled every 2 s under load) must stay below this with
   * the default MAX_PENDING_BYTES.
   */
  private static final long LIVE_HEAP_BOUND_MIB = 256;

  private static final PushClient PUSH = new PushClient(8);

  private final TestDatabase database;

  OverloadIT(TestDatabase database) {
    this.database = database;
  }

  /** Answers by status (-1: no answer, the connection failed) and how long the 429s took. */
  private record Load(
      Map<Integer, Long> statuses,
      long[] refusalMillis,
      long requests,
      Map<String, Long> connectionFailures) {
    long answered() {
      return statuses.values().stream().mapToLong(Long::longValue).sum();
    }

    long percentile(double p) {
      if (refusalMillis.length == 0) {
        return 0;
      }
      return refusalMillis[(int) Math.min(refusalMillis.length - 1, p * refusalMillis.length)];
    }
  }

  /** {@code clients} threads send {@code body} again and again until {@code seconds} pass. */
  private static Load load(URI url, byte[] body, int clients, int seconds) throws Exception {
    Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
    Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    ConcurrentLinkedQueue<Long> refusals = new ConcurrentLinkedQueue<>();
    AtomicLong requests = new AtomicLong();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    CountDownLatch done = new CountDownLatch(clients);
    for (int i = 0; i < clients; i++) {
      pool.execute(
          () -> {
            try {
              while (System.nanoTime() < deadline && requests.incrementAndGet() < 2_000_000) {
                long start = System.nanoTime();
                int status;
                try {
                  status = PUSH.post(url, body);
                } catch (IOException e) {
                  status = -1;
                  failures
                      .computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder())
                      .increment();
                }
                long millis = (System.nanoTime() - start) / 1_000_000;
                statuses.computeIfAbsent(status, s -> new LongAdder()).increment();
                if (status == 429) {
                  refusals.add(millis);
                } else if (status == -1 || status == 503) {
                  Thread.sleep(50);
                }
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            } finally {
              done.countDown();
            }
          });
    }
    done.await(seconds + 120L, TimeUnit.SECONDS);
    pool.shutdownNow();
    Map<Integer, Long> counted = new TreeMap<>();
    statuses.forEach((status, count) -> counted.put(status, count.sum()));
    long[] sorted = refusals.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(sorted);
    Map<String, Long> failed = new TreeMap<>();
    failures.forEach((type, count) -> failed.put(type, count.sum()));
    return new Load(counted, sorted, requests.get(), failed);
  }

  private static byte[] envelope(String id, String data) {
    return ("{\"message\":{\"data\":\""
            + Base64.getEncoder().encodeToString(data.getBytes(StandardCharsets.UTF_8))
            + "\",\"messageId\":\""
            + id
            + "\"},\"subscription\":\"projects/p/subscriptions/s\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * From -Xlog:gc: the most the heap held (before any collection) and the most that was live (after
   * a full collection; a young collection leaves the old generation's garbage in place, and large
   * arrays go straight there, so only full collections show what is reachable).
   */
  private record Heap(long peakUsedMib, long peakLiveMib, int fullCollections, int collections) {}

  private static Heap heap(Path gcLog) throws IOException {
    Pattern pause = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");
    long used = 0;
    long live = 0;
    int full = 0;
    int collections = 0;
    for (String line : Files.readAllLines(gcLog)) {
      Matcher m = pause.matcher(line);
      if (m.find()) {
        used = Math.max(used, Long.parseLong(m.group(1)));
        collections++;
        if (line.contains("Pause Full")) {
          live = Math.max(live, Long.parseLong(m.group(2)));
          full++;
        }
      }
    }
    return new Heap(used, live, full, collections);
  }

  /** Forces a full collection in the service every 2 s (jcmd GC.run) while {@code phase} runs. */
  private static <T> T sampled(long pid, java.util.concurrent.Callable<T> phase) throws Exception {
    java.util.concurrent.atomic.AtomicBoolean running =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread sampler =
        new Thread(
            () -> {
              String jcmd = ServiceJava.forService().resolveSibling("jcmd").toString();
              while (running.get()) {
                try {
                  Thread.sleep(2_000);
                  new ProcessBuilder(jcmd, Long.toString(pid), "GC.run")
                      .redirectErrorStream(true)
                      .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                      .start()
                      .waitFor(20, TimeUnit.SECONDS);
                } catch (IOException e) {
                  return;
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "heap-sampler");
    sampler.setDaemon(true);
    sampler.start();
    try {
      return phase.call();
    } finally {
      running.set(false);
      sampler.interrupt();
    }
  }

  @Test
  void farMoreConcurrencyThanAdmittedGetsFast429sAndTheHeapStaysBounded() throws Exception {
    database.execute("CREATE TABLE overload (id String, s String) ENGINE = MergeTree ORDER BY id");
    Path work = Results.runDirectory("overload");
    Path gcLog = work.resolve("gc.log");
    int seconds = Results.overloadSeconds();
    try (FaultInjectingProxy proxy = FaultInjectingProxy.to(database.server().url());
        ServiceProcess service =
            new ServiceProcess(
                    Map.of(
                        "CLICKHOUSE_URL", proxy.url(),
                        "CLICKHOUSE_USER", database.server().user(),
                        "CLICKHOUSE_PASSWORD", database.server().password(),
                        "CLICKHOUSE_DATABASE", database.name(),
                        "CLICKHOUSE_TABLE", "overload",
                        "MAX_PENDING_MESSAGES", "200",
                        "ANSWER_TIMEOUT_MS", "20000"),
                    List.of("-Xmx" + HEAP_MIB + "m", "-XX:+UseSerialGC", "-Xlog:gc:file=" + gcLog),
                    work.resolve("service.log"),
                    LocalClickHouse.freePort())
                .start()) {
      proxy.slowInserts(Duration.ofSeconds(1));

      // 1. Small messages from 600 clients: at most 200 may wait; the rest get 429.
      Load small =
          sampled(
              service.pid(),
              () ->
                  load(
                      service.url(),
                      envelope("small", "{\"id\":\"small\",\"s\":\"x\"}"),
                      600,
                      seconds));
      // 2. 10 MB messages (13.3 MB requests, about the largest Pub/Sub sends) from 48 clients.
      String big = "{\"id\":\"big\",\"s\":\"" + "x".repeat(10_000_000) + "\"}";
      Load large =
          sampled(service.pid(), () -> load(service.url(), envelope("big", big), 48, seconds));

      proxy.heal();
      for (int i = 0; i < 600 && service.metric("pubsub_clickhouse_waiting_requests") > 0; i++) {
        Thread.sleep(100);
      }
      int after = PUSH.post(service.url(), envelope("after", "{\"id\":\"after\",\"s\":\"ok\"}"));
      Heap heap = heap(gcLog);
      String log = service.output();
      Results.record(
          "overload.tsv",
          String.format(
              Locale.ROOT,
              "heap=%dMiB\tseconds=%d\tsmall=%s %s small-429-ms(p50/p99/max)=%d/%d/%d"
                  + "\tlarge=%s %s large-429-ms(p50/p99/max)=%d/%d/%d"
                  + "\tpeak-used=%dMiB\tpeak-live=%dMiB\tfull-collections=%d\tcollections=%d"
                  + "\tafter=%d",
              HEAP_MIB,
              seconds,
              small.statuses(),
              small.connectionFailures(),
              small.percentile(0.5),
              small.percentile(0.99),
              small.percentile(1.0),
              large.statuses(),
              large.connectionFailures(),
              large.percentile(0.5),
              large.percentile(0.99),
              large.percentile(1.0),
              heap.peakUsedMib(),
              heap.peakLiveMib(),
              heap.fullCollections(),
              heap.collections(),
              after));

      assertThat(log).doesNotContain("OutOfMemoryError");
      assertThat(service.alive()).isTrue();
      assertThat(after).as("a good message after the storm").isEqualTo(204);
      assertThat(small.statuses()).containsKeys(204, 429).doesNotContainKeys(500, 503);
      // A connection may fail under such a storm (to Pub/Sub, a nack like 429): seen up to about
      // one in a thousand on a loaded 2-core machine; at most one in a hundred.
      assertThat(small.statuses().getOrDefault(-1, 0L))
          .as("small requests without an answer: %s", small.connectionFailures())
          .isLessThanOrEqualTo(small.answered() / 100);
      assertThat(large.statuses()).containsKey(429).doesNotContainKeys(500);
      assertThat(small.percentile(0.99)).as("429s come at once (ms, p99)").isLessThan(2_000);
      assertThat(heap.fullCollections()).as("full collections sampled under load").isPositive();
      assertThat(heap.peakLiveMib())
          .as("live heap under load (MiB, after full collections), bound %d", LIVE_HEAP_BOUND_MIB)
          .isLessThan(LIVE_HEAP_BOUND_MIB);
    }
    assertThat(database.query("SELECT count() FROM overload WHERE id = 'after'")).isEqualTo("1");
  }
}
