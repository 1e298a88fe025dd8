package dev.pubsubclickhouse.function.observability;

import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.messages.PubSubMessage;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One WARNING line per message that cannot be written, naming its id and the reason its dead letter
 * holds, at most {@link #LINES_PER_SECOND} lines in each second. A bad publisher can send thousands
 * of such messages a second: the lines left out are counted, and the next line written says how
 * many ({@code notLogged}); the {@code dead-lettered} and {@code unprocessable} counters count them
 * all.
 */
public final class RefusalLog {
  static final int LINES_PER_SECOND = 5;
  private static final long SECOND_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final LongSupplier nanoTime;
  private final String notStoredOutcome;
  private long windowStart;
  private int linesInWindow;
  private long notLogged;

  /**
   * For the push edge, which answers a message no sink took 422.
   *
   * @param nanoTime the clock ({@link System#nanoTime} but in tests)
   */
  public RefusalLog(LongSupplier nanoTime) {
    this(nanoTime, "answered 422");
  }

  /**
   * @param nanoTime the clock ({@link System#nanoTime} but in tests)
   * @param notStoredOutcome what the edge did with a message no sink took ("nacked" when pulled)
   */
  public RefusalLog(LongSupplier nanoTime, String notStoredOutcome) {
    this.nanoTime = nanoTime;
    this.notStoredOutcome = notStoredOutcome;
    this.windowStart = nanoTime.getAsLong() - SECOND_NANOS;
  }

  /**
   * Logs that {@code message} could not be written, unless this second's lines are spent.
   *
   * @param deadLettered true when the dead-letter sinks hold it, false when the edge refused it
   */
  public void refused(PubSubMessage message, boolean deadLettered, String reason) {
    long leftOut = admit();
    if (leftOut < 0) {
      return;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("messageId", message.messageId() == null ? "" : message.messageId());
    fields.put("outcome", deadLettered ? "dead-lettered" : notStoredOutcome);
    fields.put("reason", reason);
    if (leftOut > 0) {
      fields.put("notLogged", leftOut);
    }
    JsonLog.warning("a message cannot be written", fields);
  }

  /**
   * -1 when this line is left out; else how many were left out since the last line written (and the
   * count starts again).
   */
  synchronized long admit() {
    long now = nanoTime.getAsLong();
    if (now - windowStart >= SECOND_NANOS) {
      windowStart = now;
      linesInWindow = 0;
    }
    if (linesInWindow == LINES_PER_SECOND) {
      notLogged++;
      return -1;
    }
    linesInWindow++;
    long leftOut = notLogged;
    notLogged = 0;
    return leftOut;
  }
}
