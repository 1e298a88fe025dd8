package dev.pubsubclickhouse.driver;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A local stand-in for Pub/Sub push delivery: sends every message to the endpoint with bounded
 * concurrency; a nack (non-2xx or timeout) is retried with exponential backoff and jitter, and
 * after the last attempt the message is appended to the dead-letter file. Every message ends acked
 * or dead-lettered; the summary says how many of each.
 *
 * <p>gcloud's Pub/Sub emulator is the real push path and what the end-to-end tests and {@code
 * scripts/demo} use (emulator-tests). This driver is kept only for what the emulator cannot do:
 * load (the emulator has two pushes in flight per subscription; this has hundreds), OIDC tokens
 * ({@code --token}; the emulator sends none) and delivery attempts in the body (the emulator sends
 * no {@code deliveryAttempt}) — and for the demo on a machine without the emulator.
 */
public final class PushDriver {
  private final DriverOptions options;
  private final PushRequests requests;
  private final HttpClient http;
  private final PrintStream progressOut;
  private final DelayQueue<Scheduled> queue = new DelayQueue<>();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicLong deadLettered = new AtomicLong();
  private final AtomicLong turn = new AtomicLong();
  private final Map<String, LongAdder> answers = new ConcurrentSkipListMap<>();
  private final LatencyHistogram latency = new LatencyHistogram();

  PushDriver(DriverOptions options, PrintStream progressOut) {
    this.options = options;
    this.requests = new PushRequests(options);
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .executor(Executors.newFixedThreadPool(2, daemon("http")))
            .build();
    this.progressOut = progressOut;
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 0 || List.of(args).contains("--help")) {
      System.out.print(DriverOptions.USAGE);
      return;
    }
    DriverOptions options;
    try {
      options = DriverOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("push-driver: " + e.getMessage() + " (see --help)");
      System.exit(2);
      return;
    }
    Summary summary = new PushDriver(options, System.err).run(MessageSource.load(options));
    System.out.println(summary);
    System.exit(summary.complete() ? 0 : 1);
  }

  /**
   * The outcome of a run.
   *
   * @param answers requests by answer: the HTTP status, or "error" when none came
   * @param p50Millis half of all requests were answered within this (acks and nacks)
   * @param p99Millis ... and 99% within this
   */
  public record Summary(
      long messages,
      long sent,
      long acked,
      long retried,
      long deadLettered,
      double seconds,
      Map<String, Long> answers,
      double p50Millis,
      double p99Millis) {
    private static final Pattern LINE =
        Pattern.compile(
            "messages=(\\d+) sent=(\\d+) acked=(\\d+) retried=(\\d+) dead-lettered=(\\d+)"
                + " seconds=([0-9.]+) msgs/s=\\d+ answers=(\\S*) p50-ms=(\\S+)"
                + " p99-ms=(\\S+)");

    public boolean complete() {
      return acked + deadLettered == messages;
    }

    /**
     * The summary line in {@code text} (a run's output), as {@link #toString()} printed it, to the
     * precision printed; empty when there is none.
     */
    public static Optional<Summary> find(String text) {
      Matcher line = LINE.matcher(text);
      if (!line.find()) {
        return Optional.empty();
      }
      Map<String, Long> answers = new TreeMap<>();
      for (String entry : line.group(7).split(",")) {
        int colon = entry.indexOf(':');
        if (colon > 0) {
          answers.put(entry.substring(0, colon), Long.parseLong(entry.substring(colon + 1)));
        }
      }
      return Optional.of(
          new Summary(
              Long.parseLong(line.group(1)),
              Long.parseLong(line.group(2)),
              Long.parseLong(line.group(3)),
              Long.parseLong(line.group(4)),
              Long.parseLong(line.group(5)),
              Double.parseDouble(line.group(6)),
              answers,
              Double.parseDouble(line.group(8)),
              Double.parseDouble(line.group(9))));
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "messages=%d sent=%d acked=%d retried=%d dead-lettered=%d seconds=%.1f msgs/s=%.0f"
              + " answers=%s p50-ms=%.2f p99-ms=%.2f",
          messages,
          sent,
          acked,
          retried,
          deadLettered,
          seconds,
          acked / Math.max(seconds, 0.001),
          answers.entrySet().stream()
              .map(e -> e.getKey() + ":" + e.getValue())
              .collect(Collectors.joining(",")),
          p50Millis,
          p99Millis);
    }
  }

  Summary run(List<Delivery> deliveries) throws IOException, InterruptedException {
    long start = System.nanoTime();
    CountDownLatch finished = new CountDownLatch(deliveries.size());
    deliveries.forEach(d -> queue.add(new Scheduled(d)));
    ExecutorService workers = Executors.newFixedThreadPool(options.concurrency(), daemon("push"));
    try (BufferedWriter deadLetters =
        Files.newBufferedWriter(
            options.deadLetterFile(),
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND)) {
      for (int i = 0; i < options.concurrency(); i++) {
        workers.execute(() -> work(finished, deadLetters));
      }
      while (!finished.await(1, TimeUnit.SECONDS)) {
        progress(start, deliveries.size(), false);
      }
      progress(start, deliveries.size(), true);
    } finally {
      workers.shutdownNow();
    }
    Map<String, Long> counted = new java.util.TreeMap<>();
    answers.forEach((answer, count) -> counted.put(answer, count.sum()));
    return new Summary(
        deliveries.size(),
        sent.get(),
        acked.get(),
        retried.get(),
        deadLettered.get(),
        (System.nanoTime() - start) / 1e9,
        counted,
        latency.percentileMillis(0.5),
        latency.percentileMillis(0.99));
  }

  private void work(CountDownLatch finished, BufferedWriter deadLetters) {
    while (finished.getCount() > 0) {
      Scheduled next;
      try {
        next = queue.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (next == null) {
        continue;
      }
      Delivery delivery = next.delivery;
      String answer = deliver(delivery);
      if (answer == null) {
        acked.incrementAndGet();
        finished.countDown();
      } else if (delivery.attempt() >= options.maxAttempts()) {
        synchronized (deadLetters) {
          try {
            deadLetters.write(PushRequests.deadLetterLine(delivery, answer));
            deadLetters.newLine();
            deadLetters.flush();
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
        deadLettered.incrementAndGet();
        finished.countDown();
      } else {
        retried.incrementAndGet();
        queue.add(new Scheduled(delivery.nextAttempt(backoffNanos(delivery.attempt()))));
      }
    }
  }

  /** Null on an ack; otherwise what the endpoint answered. */
  private String deliver(Delivery delivery) {
    sent.incrementAndGet();
    List<URI> endpoints = options.endpoints();
    URI endpoint = endpoints.get((int) (turn.getAndIncrement() % endpoints.size()));
    long start = System.nanoTime();
    try {
      HttpResponse<Void> response =
          http.send(requests.build(delivery, endpoint), HttpResponse.BodyHandlers.discarding());
      answered(Integer.toString(response.statusCode()), start);
      return PushRequests.isAck(response.statusCode()) ? null : "HTTP " + response.statusCode();
    } catch (IOException e) {
      answered("error", start);
      return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private void answered(String answer, long start) {
    latency.record(System.nanoTime() - start);
    answers.computeIfAbsent(answer, a -> new LongAdder()).increment();
  }

  /** Pub/Sub's exponential backoff between min and max, with jitter. */
  private long backoffNanos(int attempt) {
    long min = options.minBackoff().toNanos();
    long max = options.maxBackoff().toNanos();
    long delay = Math.min(max, min << Math.min(attempt - 1, 20));
    return delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
  }

  private void progress(long start, int total, boolean last) {
    if (options.quiet()) {
      return;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    progressOut.printf(
        "\rsent %d  acked %d/%d  retried %d  dead-lettered %d  %.0f msgs/s%s",
        sent.get(),
        acked.get(),
        total,
        retried.get(),
        deadLettered.get(),
        acked.get() / Math.max(seconds, 0.001),
        last ? "\n" : "");
    progressOut.flush();
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicLong count = new AtomicLong();
    return task -> {
      Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** A delivery waiting for its time. */
  private static final class Scheduled implements Delayed {
    final Delivery delivery;

    Scheduled(Delivery delivery) {
      this.delivery = delivery;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(delivery.notBeforeNanos() - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }
  }
}
