package dev.pubsubclickhouse.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The values of one test event in the columns {@code id}, {@code name}, {@code amount Decimal} and
 * {@code at DateTime64(3)}, as the emulator and replay tests publish it and read it back: amounts
 * without trailing zeros, times as ClickHouse prints them, so that the two compare equal.
 */
public record EventValues(long id, String name, BigDecimal amount, String at) {
  /** How ClickHouse prints a {@code DateTime64(3, 'UTC')}. */
  public static final DateTimeFormatter CLICKHOUSE_MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  /** An event as published: {@code at} an ISO-8601 instant, {@code amount} a decimal string. */
  public static EventValues published(JsonNode event) {
    return new EventValues(
        event.get("id").asLong(),
        event.get("name").asText(),
        new BigDecimal(event.get("amount").asText()).stripTrailingZeros(),
        CLICKHOUSE_MILLIS.format(Instant.parse(event.get("at").asText())));
  }

  /** A row read back with {@code toString(amount) AS amount, toString(at) AS at}. */
  public static EventValues stored(JsonNode row) {
    return new EventValues(
        row.get("id").asLong(),
        row.get("name").asText(),
        new BigDecimal(row.get("amount").asText()).stripTrailingZeros(),
        row.get("at").asText());
  }
}
