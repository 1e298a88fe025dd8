package dev.pubsubclickhouse.core.write;

import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.FailureKind;
import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.insert.WaitedFor;
import dev.pubsubclickhouse.core.log.JsonLog;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;

/**
 * Writes a batch of records to the target table with one INSERT, and says where each record ended:
 *
 * <ol>
 *   <li>records that cannot be encoded for the table (after one fresh read of the schema, in case
 *       the table changed) are dead letters;
 *   <li>the others go in one INSERT; when the table changed under it, the schema is read again, the
 *       records encoded again and the INSERT sent again;
 *   <li>when ClickHouse refuses the INSERT for any reason that is not known to be transient or
 *       outside the rows, the records are split in halves until the refused ones stand alone, so
 *       one poison record never costs the others; they are dead letters;
 *   <li>a transient failure (after the inserter's retries), or one outside the rows (grants, a
 *       missing table), leaves the records not yet written to be retried later;
 *   <li>dead letters go to every sink; with no sink they are refused, none of their rows written.
 * </ol>
 *
 * A record is never split across INSERTs, so it is written whole or not at all (on a Distributed
 * table: whole or not at all on each shard, as the shards commit on their own). Thread-safe: each
 * call keeps its own state.
 */
public final class TableWriter {
  /** Schema changes one batch may meet before its records are left for a later try. */
  private static final int MAX_SCHEMA_CHANGES = 2;

  private final TargetTable table;
  private final ClickHouseInserter inserter;
  private final List<DeadLetterSink> sinks;
  private final WriteEvents events;
  private final String source;

  /**
   * @param source names where the records come from, for the deduplication tokens: record
   *     identities need to be unique only within it (e.g. "pubsub", or a backfill's source
   *     fingerprint)
   */
  public TableWriter(
      TargetTable table,
      ClickHouseInserter inserter,
      List<DeadLetterSink> sinks,
      WriteEvents events,
      String source) {
    this.table = table;
    this.inserter = inserter;
    this.sinks = List.copyOf(sinks);
    this.events = events;
    this.source = source;
  }

  public TargetTable table() {
    return table;
  }

  public boolean hasDeadLetterSinks() {
    return !sinks.isEmpty();
  }

  /** One call's state. */
  private static final class Batch {
    final List<Entry> entries;
    Exception retryCause;

    Batch(List<? extends WriteRecord> records) {
      entries = new ArrayList<>(records.size());
      records.forEach(record -> entries.add(new Entry(record)));
    }
  }

  /** One record while its batch is written. */
  private static final class Entry {
    final WriteRecord record;
    EncodedRows rows;
    WriteOutcome outcome;
    String refusal;

    Entry(WriteRecord record) {
      this.record = record;
    }

    boolean settled() {
      return outcome != null || refusal != null;
    }
  }

  /**
   * Where each record of a batch ended, in the batch's order.
   *
   * @param reasons why each record could not be written, the text its dead letter holds (for a
   *     record {@link WriteOutcome#DEAD_LETTERED} or {@link WriteOutcome#REFUSED}); null for the
   *     others
   * @param retryCause why records are left for a later try ({@link WriteOutcome#RETRY}), or null
   */
  public record Result(List<WriteOutcome> outcomes, List<String> reasons, Exception retryCause) {}

  /**
   * Writes the records and says where each one ended. Never throws; an interrupt leaves the records
   * not yet written to {@link WriteOutcome#RETRY} and keeps the thread's interrupt flag.
   */
  public Result write(List<? extends WriteRecord> records) {
    Batch batch = new Batch(records);
    List<Entry> entries = batch.entries;
    TargetTable.Snapshot schema = table.current();
    encode(entries, schema);
    if (entries.stream().anyMatch(entry -> entry.rows.isRejected())) {
      // A value refused by a stale schema may fit the table as it is now: look before blaming it.
      TargetTable.Snapshot fresh = freshSchema(schema);
      if (fresh != null && fresh != schema) {
        schema = fresh;
        encode(entries, schema);
      }
    }
    List<Entry> toInsert = new ArrayList<>(entries.size());
    for (Entry entry : entries) {
      if (entry.rows.isRejected()) {
        entry.refusal = entry.rows.rejection();
      } else if (entry.rows.rowCount() == 0) {
        entry.outcome = WriteOutcome.WRITTEN;
      } else {
        toInsert.add(entry);
      }
    }
    try {
      insertOrSplit(batch, toInsert, schema);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      retryLater(batch, List.of(entries), e);
    }
    deadLetter(batch);
    List<String> reasons = new ArrayList<>(entries.size());
    for (Entry entry : entries) {
      boolean refused =
          entry.outcome == WriteOutcome.DEAD_LETTERED || entry.outcome == WriteOutcome.REFUSED;
      reasons.add(refused ? entry.refusal : null);
    }
    return new Result(
        entries.stream().map(entry -> entry.outcome).toList(),
        Collections.unmodifiableList(reasons),
        batch.retryCause);
  }

  private void insertOrSplit(Batch batch, List<Entry> entries, TargetTable.Snapshot schema)
      throws InterruptedException {
    Deque<List<Entry>> groups = new ArrayDeque<>();
    if (!entries.isEmpty()) {
      groups.push(entries);
    }
    int schemaChanges = 0;
    boolean nothingKeptReported = false;
    while (!groups.isEmpty()) {
      List<Entry> group = groups.pop();
      if (abandoned(group)) {
        // Nobody would hear of it (a redelivery stores it again): not sent, and no time spent on
        // it. The other groups are still tried.
        retryLater(batch, List.of(group), new IllegalStateException(WaitedFor.NOT_SENT));
        continue;
      }
      InsertException failure = insert(group, schema);
      if (failure == null) {
        group.forEach(entry -> entry.outcome = WriteOutcome.WRITTEN);
        continue;
      }
      FailureKind kind = failure.kind();
      if (kind == FailureKind.TRANSIENT && abandoned(group)) {
        // Not retried: its source sends it again. The other groups are still tried.
        retryLater(batch, List.of(group), failure);
        continue;
      }
      if (kind == FailureKind.VIEW_FAILED) {
        // The engine decides whether the rows stayed: read it now, since a table can be swapped
        // for another (EXCHANGE TABLES) while the service runs. Unreadable: as last read.
        TargetTable.Snapshot now = freshSchema(schema);
        if (now != null && now != schema) {
          schema = now;
          reencode(groups, schema);
        }
        if (!keptWhole(group, failure, schema)) {
          kind = ClickHouseFailures.classifyInsideAView(failure.getCause());
          if (!schema.keepsRows() && !schema.distributed() && !nothingKeptReported) {
            events.viewFailedAndNothingKept(group.size(), schema.engine(), failure);
            nothingKeptReported = true;
          }
        }
      }
      switch (kind) {
        case VIEW_FAILED -> {
          group.forEach(entry -> entry.outcome = WriteOutcome.WRITTEN);
          events.viewFailed(group.stream().map(entry -> entry.record.identity()).toList(), failure);
        }
        case TRANSIENT, NOT_THE_ROWS -> {
          groups.push(group);
          retryLater(batch, groups, failure);
          return;
        }
        case SCHEMA_CHANGED -> {
          TargetTable.Snapshot fresh = freshSchema(schema);
          if (fresh == null || (fresh != schema && schemaChanges++ == MAX_SCHEMA_CHANGES)) {
            groups.push(group);
            retryLater(batch, groups, failure);
            return;
          }
          if (fresh == schema) {
            // The columns are as the rows were encoded for: the refusal is about the rows.
            split(group, failure, groups);
          } else {
            events.schemaChanged();
            schema = fresh;
            groups.push(group);
            reencode(groups, schema);
          }
        }
        case REFUSED -> split(group, failure, groups);
      }
    }
  }

  /**
   * True when a view's failure came after the target table stored the whole group: ClickHouse
   * writes the target table, then the views, block by block, and an INSERT of at most
   * max_insert_block_size rows is one block (the settings that would split it further are the
   * service's own). {@code written_rows} counts the views' rows too, so it alone cannot tell.
   *
   * <p>Never for an engine that does not durably keep what it is given ({@code Null}, {@code
   * Buffer}, {@code Memory}, ...): there the view is where the rows were going, and its failure may
   * mean they are nowhere. The failure then means what its code means: an outage is left for later,
   * a refusal is split so that only the messages the view refuses are dead-lettered.
   *
   * <p>Never for a Distributed table: its {@code written_rows} counts the rows it sent to the
   * shards as well as those its own shard stored, and a view failing on one shard says nothing of
   * the blocks that shard or the others had not yet stored (seen: 29 rows "written" for 20 sent, 8
   * of them on no shard). The group is split as if refused: the rows may be stored twice, never
   * lost.
   */
  private boolean keptWhole(
      List<Entry> group, InsertException failure, TargetTable.Snapshot schema) {
    if (!schema.keepsRows()) {
      return false;
    }
    int rows = rowCount(group);
    return rows <= inserter.options().maxInsertBlockSize() && failure.writtenRows() >= rows;
  }

  /** True when nobody waits for any record of the group any more. */
  private static boolean abandoned(List<Entry> group) {
    return group.stream().allMatch(entry -> entry.record.abandoned());
  }

  /** Somebody waits for the group while anybody waits for one of its records. */
  private static WaitedFor waitedFor(List<Entry> group) {
    long until = group.get(0).record.waitedForUntilNanos();
    for (Entry entry : group) {
      long next = entry.record.waitedForUntilNanos();
      if (next == WaitedFor.NO_END) {
        until = next;
        break;
      }
      if (next - until > 0) {
        until = next;
      }
    }
    return new WaitedFor(() -> !abandoned(group), until);
  }

  /** Halves a refused group, or blames its record when it holds only one. */
  private static void split(List<Entry> group, InsertException failure, Deque<List<Entry>> groups) {
    if (group.size() == 1) {
      group.get(0).refusal = "ClickHouse refused it: " + failure.reason();
      return;
    }
    int middle = group.size() / 2;
    groups.push(group.subList(middle, group.size()));
    groups.push(group.subList(0, middle));
  }

  /** Encodes the records of every group again; those that no longer fit leave their group. */
  private static void reencode(Deque<List<Entry>> groups, TargetTable.Snapshot schema) {
    List<List<Entry>> again = new ArrayList<>(groups.size());
    for (List<Entry> group : groups) {
      List<Entry> kept = new ArrayList<>(group.size());
      for (Entry entry : group) {
        entry.rows = rowsFor(entry.record, schema);
        if (entry.rows.isRejected()) {
          entry.refusal = entry.rows.rejection();
        } else if (entry.rows.rowCount() == 0) {
          entry.outcome = WriteOutcome.WRITTEN;
        } else {
          kept.add(entry);
        }
      }
      if (!kept.isEmpty()) {
        again.add(kept);
      }
    }
    groups.clear();
    for (int i = again.size() - 1; i >= 0; i--) {
      groups.push(again.get(i));
    }
  }

  /** Sends one INSERT of the group's rows; null when it succeeded. */
  private InsertException insert(List<Entry> group, TargetTable.Snapshot schema)
      throws InterruptedException {
    if (inserter.format() == InsertFormat.UNTYPED && !unchangedSince(schema)) {
      return new InsertException(
          FailureKind.SCHEMA_CHANGED,
          1,
          new IllegalStateException("the table's columns changed since they were read"));
    }
    RowBinaryOutput body = new RowBinaryOutput(byteCount(group));
    List<String> identities = new ArrayList<>(group.size());
    for (Entry entry : group) {
      body.writeBytes(entry.rows.bytes(), entry.rows.offset(), entry.rows.length());
      identities.add(entry.record.identity());
    }
    long start = System.nanoTime();
    try {
      inserter.insert(
          table.name(),
          schema.insertColumns(),
          body,
          DeduplicationTokens.of(source, identities),
          waitedFor(group));
      events.inserted(rowCount(group), (System.nanoTime() - start) / 1_000_000);
      return null;
    } catch (InsertException e) {
      events.insertFailed(e);
      return e;
    }
  }

  private boolean unchangedSince(TargetTable.Snapshot schema) {
    try {
      return table.unchangedSince(schema);
    } catch (RuntimeException e) {
      return true; // the INSERT itself will tell whether ClickHouse answers
    }
  }

  /** The schema as ClickHouse has it now, or null when it cannot be read. */
  private TargetTable.Snapshot freshSchema(TargetTable.Snapshot schema) {
    try {
      return table.refresh();
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static void encode(List<Entry> entries, TargetTable.Snapshot schema) {
    for (Entry entry : entries) {
      entry.rows = rowsFor(entry.record, schema);
    }
  }

  /** The record's rows; an encoder that fails unexpectedly rejects the record, never the batch. */
  private static EncodedRows rowsFor(WriteRecord record, TargetTable.Snapshot schema) {
    try {
      return record.rowsFor(schema);
    } catch (RuntimeException e) {
      return EncodedRows.rejected("the record could not be encoded: " + e);
    }
  }

  /** Leaves every record of the groups that has no outcome yet for a later try. */
  private void retryLater(Batch batch, Iterable<List<Entry>> groups, Exception cause) {
    List<Entry> open = new ArrayList<>();
    for (List<Entry> group : groups) {
      group.stream().filter(entry -> !entry.settled()).forEach(open::add);
    }
    markRetry(batch, open, cause);
  }

  /** Marks the entries {@link WriteOutcome#RETRY} for {@code cause}: their source tries later. */
  private void markRetry(Batch batch, List<Entry> entries, Exception cause) {
    if (entries.isEmpty()) {
      return;
    }
    entries.forEach(entry -> entry.outcome = WriteOutcome.RETRY);
    batch.retryCause = cause;
    events.notWritten(entries.size(), cause);
  }

  private void deadLetter(Batch batch) {
    List<Entry> refused =
        batch.entries.stream().filter(e -> e.outcome == null && e.refusal != null).toList();
    List<Entry> abandoned = refused.stream().filter(entry -> entry.record.abandoned()).toList();
    if (!abandoned.isEmpty()) {
      // Answered already (503): its source sends it again, and that delivery is dead-lettered.
      // Written now, it would be dead-lettered twice.
      markRetry(batch, abandoned, new IllegalStateException(WaitedFor.NOT_SENT));
      refused = refused.stream().filter(entry -> entry.outcome == null).toList();
    }
    if (refused.isEmpty()) {
      return;
    }
    // A reason quotes the record's values or ClickHouse's message; it goes to the sinks and back to
    // the record's source, so no configured secret may be in it.
    refused.forEach(entry -> entry.refusal = JsonLog.withoutSecrets(entry.refusal));
    if (sinks.isEmpty()) {
      refused.forEach(entry -> entry.outcome = WriteOutcome.REFUSED);
      return;
    }
    List<DeadLetter> deadLetters;
    try {
      deadLetters = refused.stream().map(entry -> entry.record.deadLetter(entry.refusal)).toList();
    } catch (RuntimeException e) {
      // Without its dead letter a record cannot be kept: leave it to the source (Pub/Sub's own
      // dead-letter policy, a failed backfill task).
      markRetry(
          batch, refused, new IllegalStateException("a dead letter could not be made: " + e, e));
      return;
    }
    for (DeadLetterSink sink : sinks) {
      try {
        sink.write(deadLetters, waitedFor(refused));
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        markRetry(
            batch,
            refused,
            new IllegalStateException(sink.name() + " failed: " + e.getMessage(), e));
        return;
      }
    }
    refused.forEach(entry -> entry.outcome = WriteOutcome.DEAD_LETTERED);
    events.deadLettered(refused.size());
  }

  private static int rowCount(List<Entry> group) {
    int rows = 0;
    for (Entry entry : group) {
      rows += entry.rows.rowCount();
    }
    return rows;
  }

  private static int byteCount(List<Entry> group) {
    long bytes = 0;
    for (Entry entry : group) {
      bytes += entry.rows.length();
    }
    return (int) Math.min(Integer.MAX_VALUE - 16, bytes);
  }
}
