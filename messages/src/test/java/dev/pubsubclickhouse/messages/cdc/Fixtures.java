package dev.pubsubclickhouse.messages.cdc;

import dev.pubsubclickhouse.messages.PubSubMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Change events in the shapes of Debezium's documentation, from test resources. */
final class Fixtures {
  private Fixtures() {}

  static byte[] bytes(String name) {
    try (InputStream in = Fixtures.class.getResourceAsStream("/cdc/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static PubSubMessage message(byte[] data, String orderingKey) {
    return PubSubMessage.builder()
        .data(data)
        .messageId("1")
        .orderingKey(orderingKey)
        .subscription("s")
        .build();
  }
}
