package dev.pubsubclickhouse.function.ingest;

import java.time.Duration;

/**
 * When a batch closes and how much may wait for one. Built with {@link #builder()}; the defaults
 * are the README's.
 *
 * @param maxRows a batch closes when it holds this many rows
 * @param maxBytes a batch closes when its encoded rows reach this many bytes
 * @param maxWait a batch closes when its oldest message has waited this long
 * @param linger a batch waits at least this long from its first message. At 0 it goes as soon as no
 *     INSERT into its table is in flight.
 * @param maxConcurrentInserts how many INSERTs may be in flight at once, whatever their tables. A
 *     second INSERT into one table starts only for a batch that is full or overdue.
 * @param maxInsertsPerSecond the most INSERTs this instance starts in a second
 * @param maxPendingBytes how much memory the waiting requests may hold. Beyond it a request gets
 *     429.
 * @param maxPendingMessages how many requests may wait. Beyond it a request gets 429.
 * @param answerTimeout how long a request waits for its batch. Then it is answered 503.
 */
public record BatchPolicy(
    int maxRows,
    long maxBytes,
    Duration maxWait,
    Duration linger,
    int maxConcurrentInserts,
    int maxInsertsPerSecond,
    long maxPendingBytes,
    int maxPendingMessages,
    Duration answerTimeout) {

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link BatchPolicy}, starting from the README's defaults. */
  public static final class Builder {
    private int maxRows = 10_000;
    private long maxBytes = 16L << 20;
    private Duration maxWait = Duration.ofSeconds(1);
    private Duration linger = Duration.ZERO;
    private int maxConcurrentInserts = 2;
    private int maxInsertsPerSecond = 500;
    private long maxPendingBytes = 64L << 20;
    private int maxPendingMessages = 5_000;
    private Duration answerTimeout = Duration.ofSeconds(50);

    private Builder() {}

    public Builder maxRows(int rows) {
      this.maxRows = rows;
      return this;
    }

    public Builder maxBytes(long bytes) {
      this.maxBytes = bytes;
      return this;
    }

    public Builder maxWait(Duration wait) {
      this.maxWait = wait;
      return this;
    }

    public Builder linger(Duration linger) {
      this.linger = linger;
      return this;
    }

    public Builder maxConcurrentInserts(int inserts) {
      this.maxConcurrentInserts = inserts;
      return this;
    }

    public Builder maxInsertsPerSecond(int inserts) {
      this.maxInsertsPerSecond = inserts;
      return this;
    }

    public Builder maxPendingBytes(long bytes) {
      this.maxPendingBytes = bytes;
      return this;
    }

    public Builder maxPendingMessages(int messages) {
      this.maxPendingMessages = messages;
      return this;
    }

    public Builder answerTimeout(Duration timeout) {
      this.answerTimeout = timeout;
      return this;
    }

    public BatchPolicy build() {
      return new BatchPolicy(
          maxRows,
          maxBytes,
          maxWait,
          linger,
          maxConcurrentInserts,
          maxInsertsPerSecond,
          maxPendingBytes,
          maxPendingMessages,
          answerTimeout);
    }
  }
}
