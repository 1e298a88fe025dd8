package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.messages.UnavailableException;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rows a change event writes: the {@code after} row for a create, update or snapshot read; for
 * a delete, one row marked deleted built from {@code before} (all of it under REPLICA IDENTITY
 * FULL, only the key under DEFAULT) or, when the event has no {@code before}, from the record key;
 * none for a truncate or a message that carries no change.
 *
 * <p>A TOAST placeholder in {@code after} is replaced by the column's value in {@code before} when
 * the event has one (REPLICA IDENTITY FULL), else by the stored value ({@link StoredValues}); when
 * neither has it the event is refused with the reason, so that the placeholder is never stored.
 */
public final class ChangeRows {
  private ChangeRows() {}

  /** The rows, with no stored value to fill a placeholder from. */
  public static List<JsonNode> of(ChangeEvent event) throws PayloadRejectedException {
    try {
      return of(event, StoredValues.NONE);
    } catch (UnavailableException e) {
      throw new IllegalStateException("StoredValues.NONE reads nothing", e);
    }
  }

  public static List<JsonNode> of(ChangeEvent event, StoredValues stored)
      throws PayloadRejectedException, UnavailableException {
    return switch (event.kind()) {
      case UPSERT -> List.of(new ChangeRow(filled(event, stored), event, false));
      case DELETE -> List.of(new ChangeRow(deleted(event), event, true));
      case TRUNCATE, SKIPPED -> List.of();
    };
  }

  private static ObjectNode filled(ChangeEvent event, StoredValues stored)
      throws PayloadRejectedException, UnavailableException {
    ObjectNode after = event.after();
    ObjectNode row = null;
    Set<String> unknown = new LinkedHashSet<>();
    Iterator<Map.Entry<String, JsonNode>> fields = after.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      if (!ToastPlaceholder.within(field.getValue())) {
        continue;
      }
      JsonNode known = event.before() == null ? null : event.before().get(field.getKey());
      if (known == null || ToastPlaceholder.within(known)) {
        unknown.add(field.getKey());
        continue;
      }
      if (row == null) {
        row = after.deepCopy();
      }
      row.set(field.getKey(), known);
    }
    if (!unknown.isEmpty()) {
      ObjectNode values = stored.of(event, unknown);
      if (row == null) {
        row = after.deepCopy();
      }
      for (String column : unknown) {
        JsonNode value = values.get(column);
        if (value == null || ToastPlaceholder.within(value)) {
          throw new PayloadRejectedException(
              "column '" + column + "' of " + event.table() + ": the stored row has no value");
        }
        row.set(column, value);
      }
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
