package dev.pubsubclickhouse.driver;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The messages to send: lines of an NDJSON file, or generated log events. */
final class MessageSource {
  private static final String[] SERVICES = {"api", "web", "worker", "billing"};
  private static final String[] LEVELS = {"DEBUG", "INFO", "INFO", "INFO", "WARN", "ERROR"};
  private static final DateTimeFormatter CLICKHOUSE_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  private MessageSource() {}

  static List<Delivery> load(DriverOptions options) throws IOException {
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<byte[]> payloads =
        options.input() != null ? readLines(options) : generate(options.generate());
    List<Delivery> deliveries = new ArrayList<>(payloads.size());
    for (int i = 0; i < payloads.size(); i++) {
      deliveries.add(
          new Delivery(
              run + "-" + (i + 1), payloads.get(i), Map.copyOf(options.attributes()), 1, 0));
    }
    return deliveries;
  }

  private static List<byte[]> readLines(DriverOptions options) throws IOException {
    List<byte[]> payloads = new ArrayList<>();
    BufferedReader reader =
        "-".equals(options.input().toString())
            ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
            : Files.newBufferedReader(options.input(), StandardCharsets.UTF_8);
    try (reader) {
      for (String line; (line = reader.readLine()) != null; ) {
        if (!line.isBlank()) {
          payloads.add(line.getBytes(StandardCharsets.UTF_8));
        }
      }
    }
    return payloads;
  }

  static List<byte[]> generate(int count) {
    List<byte[]> payloads = new ArrayList<>(count);
    LocalDateTime start = LocalDateTime.now(ZoneOffset.UTC).withNano(0);
    for (int i = 0; i < count; i++) {
      String event =
          "{\"event_time\":\""
              + CLICKHOUSE_TIME.format(start.plusSeconds(i % 3600))
              + "\","
              + "\"service\":\""
              + SERVICES[i % SERVICES.length]
              + "\","
              + "\"level\":\""
              + LEVELS[i % LEVELS.length]
              + "\","
              + "\"message\":\"generated event "
              + (i + 1)
              + "\"}";
      payloads.add(event.getBytes(StandardCharsets.UTF_8));
    }
    return payloads;
  }
}
