package dev.pubsubclickhouse.driver;

import java.util.Map;

/** One message and how many times it has been delivered. */
record Delivery(
    String messageId,
    byte[] data,
    Map<String, String> attributes,
    int attempt,
    long notBeforeNanos) {
  Delivery nextAttempt(long delayNanos) {
    return new Delivery(messageId, data, attributes, attempt + 1, System.nanoTime() + delayNanos);
  }
}
