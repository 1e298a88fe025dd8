package dev.pubsubclickhouse.core.write;

import java.time.Instant;
import java.util.Map;

/**
 * A record that cannot be written, as the dead-letter sinks keep it: the original data and
 * attributes (so that a replay is the same message), where it came from, and why.
 *
 * @param identity the record's identity ({@link WriteRecord#identity()}), or null
 * @param data the data as published (what a dead-letter topic republishes)
 * @param payload the data as read, decompressed when it was compressed (what the dead-letter table
 *     shows)
 * @param origin where it came from, in a stable order (message id, publish time, subscription,
 *     ordering key, delivery attempt; or the source row of a backfill)
 * @param reason what is wrong: the column, its type, the value and the rule, or ClickHouse's
 *     message
 */
public record DeadLetter(
    String identity,
    byte[] data,
    byte[] payload,
    Map<String, String> attributes,
    Map<String, String> origin,
    String reason,
    Instant failedAt) {}
