package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.schema.TableName;
import java.util.ArrayDeque;
import java.util.function.ToLongFunction;

/**
 * One table's queued messages, its INSERTs in flight, and when its last batch was taken. While its
 * pace holds it back, and messages may go to several tables, it may hold at most half of what may
 * wait ({@code maxPendingMessages}, {@code maxPendingBytes}), so that a paced table cannot take the
 * others' room.
 */
final class TableQueue {
  final TableName table;
  final ArrayDeque<PendingMessage> messages = new ArrayDeque<>();
  private final int shareOfMessages;
  private final long shareOfBytes;
  long rows;
  long bytes;
  long footprints;
  long lastInsertStartNanos = Long.MIN_VALUE;

  /** Its batches taken and not yet written. */
  int insertsInFlight;

  /**
   * Set by {@link GroupCommitBatcher}'s decide while it has messages: when its pace allows an
   * INSERT.
   */
  long paceAllowsAt;

  TableQueue(TableName table, BatchPolicy policy) {
    this.table = table;
    this.shareOfMessages = Math.max(1, policy.maxPendingMessages() / 2);
    this.shareOfBytes = policy.maxPendingBytes() / 2;
  }

  void add(PendingMessage message) {
    messages.addLast(message);
    rows += GroupCommitBatcher.rowsOf(message);
    bytes += message.encodedRows().length;
    footprints += message.footprintBytes();
  }

  PendingMessage poll() {
    PendingMessage message = messages.pollFirst();
    rows -= GroupCommitBatcher.rowsOf(message);
    bytes -= message.encodedRows().length;
    footprints -= message.footprintBytes();
    return message;
  }

  /** True when it already holds its share, or would with a message of {@code footprint}. */
  boolean holdsItsShare(long footprint) {
    return messages.size() >= shareOfMessages
        || (!messages.isEmpty() && footprints + footprint > shareOfBytes);
  }

  boolean heldBack(ToLongFunction<TableName> pace, long now) {
    return dueAt(pace, now) - now > 0;
  }

  /** When the next INSERT with messages for this table may start by its pace: now or later. */
  long dueAt(ToLongFunction<TableName> pace, long now) {
    if (lastInsertStartNanos == Long.MIN_VALUE) {
      return now;
    }
    return lastInsertStartNanos + pace.applyAsLong(table);
  }
}
