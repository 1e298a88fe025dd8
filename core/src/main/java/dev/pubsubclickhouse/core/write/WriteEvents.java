package dev.pubsubclickhouse.core.write;

import dev.pubsubclickhouse.core.insert.InsertException;
import java.util.List;

/** What the writer reports as it goes, for metrics and logs; every method may be left empty. */
public interface WriteEvents {
  WriteEvents NONE = new WriteEvents() {};

  /** An INSERT succeeded. */
  default void inserted(int rows, long millis) {}

  /** An INSERT failed (after the inserter's own retries). */
  default void insertFailed(InsertException failure) {}

  /** The table changed under the writer; it read the schema again. */
  default void schemaChanged() {}

  /** Records will be tried again later, because of {@code cause}. */
  default void notWritten(int records, Exception cause) {}

  /**
   * The rows of these records are in the target table, but a materialized view on it failed, so the
   * view's table misses them.
   */
  default void viewFailed(List<String> identities, InsertException failure) {}

  /**
   * A materialized view failed on {@code records} records of a table whose engine keeps no rows
   * ({@code Null}, {@code Buffer}, ...): they are in no table, so they are split and written again
   * like refused records, and those the view fails on alone are dead-lettered.
   */
  default void viewFailedAndNothingKept(int records, String engine, InsertException failure) {}

  /** Records went to every dead-letter sink. */
  default void deadLettered(int records) {}
}
