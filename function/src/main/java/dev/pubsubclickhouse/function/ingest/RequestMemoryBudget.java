package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.messages.MemoryCharge;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory the requests in progress may hold. The batcher's bounds count only the messages that
 * already wait for a batch; without this, a thousand request threads reading, decoding and encoding
 * 10 MB messages at once run a 512 MiB heap out of memory before any of them reaches the batcher.
 *
 * <p>A request takes a {@link Hold} before its body is read: {@link #BYTES_PER_BODY_BYTE} bytes per
 * body byte, for the body, the decoded data and the encoded rows, kept until the answer. Reading
 * the message then charges the hold with what it turns out to need, as it needs it: the data as a
 * decompressor produces it, and the parsed rows (see {@link
 * dev.pubsubclickhouse.messages.payload.PayloadFormat#rows(byte[], MemoryCharge)}). Those charges
 * are given back once the rows are encoded. A gzip or zstd message of 500 bytes can expand to 16
 * MiB and a JSON tree can take 30 bytes per byte of data, so nothing of that is known, or reserved,
 * up front.
 *
 * <p>When a charge does not fit the budget the request is answered 429 ({@link NoRoomException}),
 * never made to wait while it holds memory. What requests hold beyond their first {@link
 * #SMALL_HOLD} bytes each may take only half the budget together, so that large messages (and
 * compressed bombs, which look small until they expand) leave the other half to small ones: sixteen
 * bombs at once took the whole budget, and good messages beside them got 429 for minutes. When
 * nothing else is held, one request may exceed the budget, so that a message larger than the budget
 * still gets through, alone; but no request may hold more than the ceiling (three quarters of the
 * heap by default), and a message that would need more is refused as a data error ({@link
 * TooCostlyException}): it would never fit.
 */
public final class RequestMemoryBudget {
  public static final int BYTES_PER_BODY_BYTE = 4;

  /**
   * What a request holds up to this counts against the whole budget only; beyond it also against
   * the half that large holds share. A small JSON message holds about 70 KiB while it is read.
   */
  static final long SMALL_HOLD = 1 << 20;

  private final long limit;
  private final long ceiling;
  private final AtomicLong reserved = new AtomicLong();

  /** What holds have beyond {@link #SMALL_HOLD} each, together. */
  private final AtomicLong large = new AtomicLong();

  /** A budget whose ceiling is three quarters of this JVM's heap (at least the limit). */
  public RequestMemoryBudget(long limit) {
    this(limit, Math.max(limit, Runtime.getRuntime().maxMemory() / 4 * 3));
  }

  /**
   * @param ceiling the most one request may hold, even alone
   */
  public RequestMemoryBudget(long limit, long ceiling) {
    this.limit = limit;
    this.ceiling = ceiling;
  }

  /** The bytes to reserve for a body of this length. */
  public static long cost(long bodyBytes) {
    return Math.max(1024, bodyBytes) * BYTES_PER_BODY_BYTE;
  }

  /**
   * A hold of {@code bytes} for a request, or null (answer 429) when they would exceed the budget.
   */
  public Hold hold(long bytes) {
    return take(0, bytes) ? new Hold(bytes) : null;
  }

  public long reserved() {
    return reserved.get();
  }

  /**
   * Adds {@code bytes} to a hold of {@code held}: within the limit, and its part beyond {@link
   * #SMALL_HOLD} within the large holds' half; or beyond both when that hold is all there is.
   */
  private boolean take(long held, long bytes) {
    long largeBytes = beyondSmall(held + bytes) - beyondSmall(held);
    if (largeBytes > 0 && !add(large, beyondSmall(held), largeBytes, limit / 2, held)) {
      return false;
    }
    if (!add(reserved, held, bytes, limit, held)) {
      large.addAndGet(-largeBytes);
      return false;
    }
    return true;
  }

  /**
   * Adds {@code bytes} to {@code total}, of which {@code own} is the hold's: within {@code bound},
   * or beyond it when the hold ({@code held}) is all the budget has.
   */
  private boolean add(AtomicLong total, long own, long bytes, long bound, long held) {
    // Lock-free: every push request passes here, hundreds at once.
    while (true) {
      long now = total.get();
      if (now + bytes > bound && (now > own || reserved.get() > held)) {
        return false;
      }
      if (total.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  private static long beyondSmall(long held) {
    return Math.max(0, held - SMALL_HOLD);
  }

  private void give(long held, long bytes) {
    large.addAndGet(-(beyondSmall(held) - beyondSmall(held - bytes)));
    reserved.addAndGet(-bytes);
  }

  /**
   * One request's memory: what it reserved before its body was read, and what reading its message
   * has charged since. Used by the request's own thread only; closed once it is answered.
   */
  public final class Hold implements MemoryCharge, AutoCloseable {
    private long held;

    private Hold(long held) {
      this.held = held;
    }

    /**
     * Adds {@code bytes} to the hold.
     *
     * @throws TooCostlyException when the hold would exceed the ceiling
     * @throws NoRoomException when the budget cannot take them now
     */
    @Override
    public void charge(long bytes) {
      if (held + bytes > ceiling) {
        throw new TooCostlyException(held + bytes, ceiling);
      }
      if (!take(held, bytes)) {
        throw new NoRoomException();
      }
      held += bytes;
    }

    /** Gives back {@code bytes} charged before (no more than the hold has). */
    @Override
    public void giveBack(long bytes) {
      long given = Math.min(bytes, held);
      give(held, given);
      held -= given;
    }

    public long held() {
      return held;
    }

    @Override
    public void close() {
      giveBack(held);
    }
  }

  /** The budget cannot take a charge now: answer 429, and Pub/Sub delivers the message again. */
  public static final class NoRoomException extends MemoryCharge.Refusal {
    private static final long serialVersionUID = 1L;

    NoRoomException() {
      super("the memory for requests in progress (MAX_PENDING_BYTES) is taken");
    }

    @Override
    public boolean mayPass() {
      return true;
    }
  }

  /** Reading the message would take more memory than any one request may hold. */
  public static final class TooCostlyException extends MemoryCharge.Refusal {
    private static final long serialVersionUID = 1L;

    TooCostlyException(long bytes, long ceiling) {
      super(
          "reading the message would take about "
              + (bytes >> 20)
              + " MiB of memory, more than the "
              + (ceiling >> 20)
              + " MiB one message may take");
    }

    @Override
    public boolean mayPass() {
      return false;
    }
  }
}
