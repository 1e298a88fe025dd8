package dev.pubsubclickhouse.function.ingest;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory the requests in progress may hold, reserved before a body is read and released when the
 * request is answered. The batcher's bounds count only the messages that already wait for a batch;
 * without this, a thousand request threads reading, decoding and encoding 10 MB messages at once
 * run a 512 MiB heap out of memory before any of them reaches the batcher.
 *
 * <p>A request is counted as {@link #BYTES_PER_BODY_BYTE} bytes per body byte: at its peak it holds
 * the body, the decoded data, the JSON tree and the encoded rows. When nothing is reserved, one
 * request is admitted whatever its size, so a message larger than the budget still gets through,
 * alone.
 */
public final class RequestMemoryBudget {
  public static final int BYTES_PER_BODY_BYTE = 4;

  private final long limit;
  private final AtomicLong reserved = new AtomicLong();

  public RequestMemoryBudget(long limit) {
    this.limit = limit;
  }

  /** The bytes to reserve for a body of this length. */
  public static long cost(long bodyBytes) {
    return Math.max(1024, bodyBytes) * BYTES_PER_BODY_BYTE;
  }

  /** Reserves {@code bytes}, or returns false (answer 429) when they would exceed the budget. */
  public boolean tryReserve(long bytes) {
    // Lock-free: every push request passes here, hundreds at once.
    while (true) {
      long now = reserved.get();
      if (now > 0 && now + bytes > limit) {
        return false;
      }
      if (reserved.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  public void release(long bytes) {
    reserved.addAndGet(-bytes);
  }

  public long reserved() {
    return reserved.get();
  }
}
