package dev.pubsubclickhouse.function.ingest;

import java.time.Duration;

/**
 * When a batch closes and how much may wait.
 *
 * @param maxRows a batch closes at this many rows
 * @param maxBytes ... or this many encoded bytes
 * @param maxWait ... or when its oldest row has waited this long
 * @param linger a batch waits at least this long from its first message (0: it goes as soon as no
 *     INSERT into its table is in flight)
 * @param maxConcurrentInserts INSERTs in flight at once, whatever their tables; more than one into
 *     a table only for a batch that is full or overdue
 * @param maxInsertsPerSecond the ceiling on INSERTs per second from this instance
 * @param maxPendingBytes memory the waiting requests may hold; beyond it requests get 429
 * @param maxPendingMessages requests that may wait; beyond it requests get 429
 * @param answerTimeout how long a request waits for its batch before it is answered 503
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
    Duration answerTimeout) {}
