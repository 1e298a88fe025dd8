package dev.pubsubclickhouse.testing.bigquery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

/**
 * A table of the stand-in: its schema fields (REST form), rows in f/v form, and its last
 * modification. Rows added to {@code rows} directly were always there; {@link #append} and {@link
 * #update} record when, so that {@link #snapshotAt} can answer BigQuery's time travel.
 *
 * <p>A {@link #generated} table computes row i when it is read and never changes: millions of rows
 * cost no memory, and its snapshots are the table itself.
 */
public final class BigQueryTable {
  public final ArrayNode fields;
  public final List<JsonNode> rows;
  public volatile long lastModified = 1_767_000_000_000L;
  public volatile String type = "TABLE";

  /** Rows of {@link #rows} still in the streaming buffer: not in numRows. */
  public volatile int streamingRows;

  /** True when every row is the same, so that an encoding of n rows can be kept and reused. */
  final boolean uniform;

  /** A uniform table's encodings of n rows, by format and n: "avro:10000", "json:50000". */
  final Map<String, byte[]> encodings = new ConcurrentHashMap<>();

  private final boolean generated;
  private final List<Change> changes = new ArrayList<>();

  private record Change(long at, int index, JsonNode before) {}

  public BigQueryTable(ArrayNode fields) {
    this(fields, new CopyOnWriteArrayList<>(), false, false);
  }

  private BigQueryTable(ArrayNode fields, List<JsonNode> rows, boolean generated, boolean uniform) {
    this.fields = fields;
    this.rows = rows;
    this.generated = generated;
    this.uniform = uniform;
  }

  /**
   * A table of {@code count} rows that never changes, row i computed by {@code row} when read.
   *
   * @param uniform every row is the same
   */
  public static BigQueryTable generated(
      ArrayNode fields, int count, IntFunction<JsonNode> row, boolean uniform) {
    List<JsonNode> rows =
        new AbstractList<>() {
          @Override
          public JsonNode get(int index) {
            if (index < 0 || index >= count) {
              throw new IndexOutOfBoundsException(index);
            }
            return row.apply(index);
          }

          @Override
          public int size() {
            return count;
          }
        };
    return new BigQueryTable(fields, rows, true, uniform);
  }

  /** A table holding {@code rows} of this one: the same rows when they never change. */
  BigQueryTable withRows(List<JsonNode> selected) {
    if (generated && selected == rows) {
      return this;
    }
    BigQueryTable table = new BigQueryTable(fields);
    table.rows.addAll(selected);
    return table;
  }

  /** Appends a row now, as a streaming insert or a load job would. */
  public synchronized void append(JsonNode row) {
    long now = tick();
    rows.add(row);
    changes.add(new Change(now, rows.size() - 1, null));
    lastModified = now;
  }

  /**
   * Appends a row as a streaming insert: readable at once, in the streaming buffer, and (as
   * BigQuery may) without a new last-modified time or row count.
   */
  public synchronized void stream(JsonNode row) {
    rows.add(row);
    streamingRows++;
  }

  /** Changes row {@code index} now, as a DML UPDATE would. */
  public synchronized void update(int index, JsonNode row) {
    long now = tick();
    changes.add(new Change(now, index, rows.get(index)));
    rows.set(index, row);
    lastModified = now;
  }

  /** The rows as they are now, fixed: later changes do not reach them. */
  synchronized List<JsonNode> current() {
    return generated ? rows : List.copyOf(rows);
  }

  /** The rows as they were at {@code millis}: changes after it undone, newest first. */
  public synchronized List<JsonNode> snapshotAt(long millis) {
    if (generated) {
      return rows;
    }
    List<JsonNode> snapshot = new ArrayList<>(rows);
    for (int i = changes.size() - 1; i >= 0; i--) {
      Change change = changes.get(i);
      if (change.at() <= millis) {
        break;
      }
      if (change.before() == null) {
        snapshot.remove(change.index());
      } else {
        snapshot.set(change.index(), change.before());
      }
    }
    return snapshot;
  }

  /**
   * A fresh millisecond, so that a change is never at the same time as a snapshot taken before it.
   */
  private static long tick() {
    long start = System.currentTimeMillis();
    long now;
    while ((now = System.currentTimeMillis()) == start) {
      Thread.onSpinWait();
    }
    return now;
  }
}
