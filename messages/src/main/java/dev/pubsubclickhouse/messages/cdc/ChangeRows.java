package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The rows a change event writes: the {@code after} row for a create, update or snapshot read; for
 * a delete, one row marked deleted built from {@code before} (all of it under REPLICA IDENTITY
 * FULL, only the key under DEFAULT) or, when the event has no {@code before}, from the record key;
 * none for a truncate or a message that carries no change.
 *
 * <p>A TOAST placeholder in {@code after} is replaced by the column's value in {@code before} when
 * the event has one (REPLICA IDENTITY FULL); without it the event is refused with the reason, so
 * that the placeholder is never stored.
 */
public final class ChangeRows {
  private ChangeRows() {}

  public static List<JsonNode> of(ChangeEvent event) throws PayloadRejectedException {
    return switch (event.kind()) {
      case UPSERT -> List.of(new ChangeRow(filled(event), event, false));
      case DELETE -> List.of(new ChangeRow(deleted(event), event, true));
      case TRUNCATE, SKIPPED -> List.of();
    };
  }

  private static ObjectNode filled(ChangeEvent event) throws PayloadRejectedException {
    ObjectNode after = event.after();
    ObjectNode row = null;
    Iterator<Map.Entry<String, JsonNode>> fields = after.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      if (!ToastPlaceholder.within(field.getValue())) {
        continue;
      }
      JsonNode known = event.before() == null ? null : event.before().get(field.getKey());
      if (known == null || ToastPlaceholder.within(known)) {
        throw new PayloadRejectedException(
            "column '"
                + field.getKey()
                + "' of "
                + event.table()
                + " holds Debezium's TOAST placeholder ("
                + ToastPlaceholder.TEXT
                + ") and the event has no before value for it: set REPLICA IDENTITY FULL on the"
                + " source table so that updates carry the unchanged value");
      }
      if (row == null) {
        row = after.deepCopy();
      }
      row.set(field.getKey(), known);
    }
    return row == null ? after : row;
  }

  private static ObjectNode deleted(ChangeEvent event) throws PayloadRejectedException {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    if (event.key() != null) {
      row.setAll(event.key());
    }
    if (event.before() != null) {
      Iterator<Map.Entry<String, JsonNode>> fields = event.before().fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        // A placeholder or a null (a non-key column under REPLICA IDENTITY DEFAULT) says nothing
        // of the deleted row: its column takes its DEFAULT.
        if (!field.getValue().isNull() && !ToastPlaceholder.within(field.getValue())) {
          row.set(field.getKey(), field.getValue());
        }
      }
    }
    if (row.isEmpty()) {
      throw new PayloadRejectedException(
          "a delete of "
              + event.table()
              + " carries neither a before row nor a record key, so nothing names the deleted row"
              + " (a table without a primary key under REPLICA IDENTITY DEFAULT or NOTHING)");
    }
    return row;
  }
}
