package dev.pubsubclickhouse.driver;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The push driver's command line. */
record DriverOptions(
    List<URI> endpoints,
    Path input,
    int generate,
    int concurrency,
    int maxAttempts,
    Duration minBackoff,
    Duration maxBackoff,
    Duration timeout,
    Path deadLetterFile,
    boolean unwrapped,
    String subscription,
    Map<String, String> attributes,
    String bearerToken,
    boolean quiet) {

  static final String USAGE =
      """
      Usage: java -jar push-driver.jar --endpoint=URL (--input=FILE.ndjson | --generate=N) [options]

      Sends each message as a Pub/Sub push request and behaves as Pub/Sub does on a nack
      (any status but 102, 200, 201, 202, 204, or a timeout): retries with exponential backoff,
      and after --max-attempts appends the message to the dead-letter file.

        --endpoint=URL[,URL...]   the push endpoint, e.g. http://127.0.0.1:8080/; several are
                                  taken in turn, request by request, as a load balancer would
        --input=FILE              NDJSON: each line is one message's data (use - for stdin)
        --generate=N              N generated log events instead of --input
        --concurrency=N           requests in flight at once (default 16)
        --max-attempts=N          deliveries before dead-lettering (default 5; Pub/Sub: 5-100)
        --min-backoff-ms=N        first retry delay (default 100)
        --max-backoff-ms=N        largest retry delay (default 10000)
        --timeout-ms=N            a request not answered by then is a nack (default 60000)
        --dead-letter-file=FILE   where dead-lettered messages go (default dead-letter.ndjson)
        --unwrapped               send the no_wrapper form with x-goog-pubsub-* headers
        --subscription=NAME       subscription name in the envelope (default projects/local/subscriptions/push)
        --attribute=KEY=VALUE     an attribute on every message (repeatable)
        --token=JWT               sent as Authorization: Bearer JWT
        --quiet                   no progress line
      """;

  static DriverOptions parse(String[] args) {
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> attributes = new LinkedHashMap<>();
    for (String arg : args) {
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + arg + "'");
      }
      int equals = arg.indexOf('=');
      String name = equals < 0 ? arg.substring(2) : arg.substring(2, equals);
      String value = equals < 0 ? "true" : arg.substring(equals + 1);
      if (name.equals("attribute")) {
        int split = value.indexOf('=');
        if (split <= 0) {
          throw new IllegalArgumentException("--attribute takes KEY=VALUE");
        }
        attributes.put(value.substring(0, split), value.substring(split + 1));
      } else {
        values.put(name, value);
      }
    }
    if (!values.containsKey("endpoint")) {
      throw new IllegalArgumentException("--endpoint is required");
    }
    if (values.containsKey("input") == values.containsKey("generate")) {
      throw new IllegalArgumentException("give either --input or --generate");
    }
    DriverOptions options =
        new DriverOptions(
            Arrays.stream(values.remove("endpoint").split(",")).map(URI::create).toList(),
            values.containsKey("input") ? Path.of(values.remove("input")) : null,
            Integer.parseInt(values.getOrDefault("generate", "0")),
            positive(values, "concurrency", 16),
            positive(values, "max-attempts", 5),
            Duration.ofMillis(positive(values, "min-backoff-ms", 100)),
            Duration.ofMillis(positive(values, "max-backoff-ms", 10_000)),
            Duration.ofMillis(positive(values, "timeout-ms", 60_000)),
            Path.of(values.getOrDefault("dead-letter-file", "dead-letter.ndjson")),
            Boolean.parseBoolean(values.getOrDefault("unwrapped", "false")),
            values.getOrDefault("subscription", "projects/local/subscriptions/push"),
            attributes,
            values.get("token"),
            Boolean.parseBoolean(values.getOrDefault("quiet", "false")));
    values
        .keySet()
        .removeAll(
            java.util.Set.of(
                "generate",
                "concurrency",
                "max-attempts",
                "min-backoff-ms",
                "max-backoff-ms",
                "timeout-ms",
                "dead-letter-file",
                "unwrapped",
                "subscription",
                "token",
                "quiet"));
    if (!values.isEmpty()) {
      throw new IllegalArgumentException("unknown option --" + values.keySet().iterator().next());
    }
    return options;
  }

  private static int positive(Map<String, String> values, String name, int fallback) {
    String text = values.get(name);
    if (text == null) {
      return fallback;
    }
    try {
      int value = Integer.parseInt(text);
      if (value > 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // fall through to the error below
    }
    throw new IllegalArgumentException(
        "--" + name + " must be a positive whole number, got '" + text + "'");
  }
}
