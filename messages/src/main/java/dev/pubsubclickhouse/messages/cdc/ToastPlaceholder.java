package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;

/**
 * Debezium's stand-in for a Postgres value it did not receive: a TOASTed column that an update did
 * not change is not in the WAL (unless REPLICA IDENTITY FULL), so the event holds {@code
 * __debezium_unavailable_value} in its place: as text, as the base64 of those bytes for a binary
 * column, as an element of an array, or as a JSON string for a json column. Never a value to store.
 */
public final class ToastPlaceholder {
  public static final String TEXT = "__debezium_unavailable_value";
  private static final String BASE64 =
      Base64.getEncoder().encodeToString(TEXT.getBytes(StandardCharsets.US_ASCII));
  private static final String JSON_STRING = "\"" + TEXT + "\"";

  private ToastPlaceholder() {}

  /** True when the value is the placeholder or holds it (an array element). */
  public static boolean within(JsonNode value) {
    if (value == null) {
      return false;
    }
    if (value.isTextual()) {
      String text = value.textValue();
      return text.equals(TEXT) || text.equals(BASE64) || text.equals(JSON_STRING);
    }
    if (value.isArray()) {
      for (JsonNode element : value) {
        if (within(element)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The refusal of an event that holds the placeholder in {@code columns} (the first is named), for
   * the {@code circumstance} in which no stored value could stand in for it.
   */
  static PayloadRejectedException refusal(
      ChangeEvent event, Set<String> columns, String circumstance) {
    return new PayloadRejectedException(
        "column '"
            + columns.iterator().next()
            + "' of "
            + event.table()
            + " holds Debezium's TOAST placeholder ("
            + TEXT
            + ")"
            + circumstance
            + ": set REPLICA IDENTITY FULL on the source table so that updates carry the"
            + " unchanged value");
  }
}
