package dev.pubsubclickhouse.backfill.progress;

import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.write.WriteEvents;
import java.util.List;
import java.util.Map;

/** The write path's events as the job's log lines. */
public final class JobWriteEvents implements WriteEvents {
  @Override
  public void schemaChanged() {
    JsonLog.warning("the target table changed; read its schema again", Map.of());
  }

  @Override
  public void notWritten(int records, Exception cause) {
    JsonLog.warning(
        "rows not written", Map.of("rows", records, "error", String.valueOf(cause.getMessage())));
  }

  @Override
  public void viewFailed(List<String> identities, InsertException failure) {
    JsonLog.error(
        "a materialized view failed; the rows are in the target table, the view's table lacks them",
        Map.of("rows", identities.size(), "error", failure.reason()));
  }

  @Override
  public void viewFailedAndNothingKept(int records, String engine, InsertException failure) {
    JsonLog.warning(
        "a materialized view failed and the table's engine keeps no rows; the rows are written"
            + " again apart, and those the view refuses are dead-lettered",
        Map.of("engine", engine, "rows", records, "error", failure.reason()));
  }
}
