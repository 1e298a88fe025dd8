package dev.pubsubclickhouse.messages.cdc;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.PayloadRejectedException;
import dev.pubsubclickhouse.messages.UnavailableException;
import java.util.Set;

/**
 * The values a change event does not carry, read from what is stored: a TOASTed column that an
 * update left unchanged, when the event has no {@code before} value for it.
 */
@FunctionalInterface
public interface StoredValues {
  /** Reads nothing: every such event is refused with the reason. */
  StoredValues NONE =
      (event, columns) -> {
        throw ToastPlaceholder.refusal(event, columns, " and the event has no before value for it");
      };

  /**
   * The values of {@code columns} in the stored row of the event's key that precedes it.
   *
   * @throws PayloadRejectedException when no stored row can give them
   * @throws UnavailableException when they could not be read now
   */
  ObjectNode of(ChangeEvent event, Set<String> columns)
      throws PayloadRejectedException, UnavailableException;
}
