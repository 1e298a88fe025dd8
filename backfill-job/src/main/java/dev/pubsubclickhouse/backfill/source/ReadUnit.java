package dev.pubsubclickhouse.backfill.source;

/**
 * One ordered run of source rows that a task reads, and checkpoints, on its own: a row range of a
 * table (REST) or one stream of a read session (Storage Read API). Positions are row numbers within
 * the unit; the key names the unit in checkpoints and deduplication tokens.
 */
public interface ReadUnit {
  /** Where pages go, in order; may block while the pipeline is full. */
  interface PageSink {
    void accept(Page page) throws InterruptedException;
  }

  /** Names this unit of this execution's snapshot: the same rows always have the same key. */
  String key();

  /** The unit's positions; a stream's end is unknown until it is read ({@code Long.MAX_VALUE}). */
  RowRange range();

  /** Rows in the unit when known, else -1. */
  long knownRows();

  /** For the log: the rows of a range, or the stream. */
  default String describe() {
    return range().toString();
  }

  /**
   * Reads the rows of {@code part}, a part of {@link #range()}, into {@code pages}; a stream reads
   * from the part's start to its own end.
   */
  void read(RowRange part, PageSink pages) throws Exception;
}
