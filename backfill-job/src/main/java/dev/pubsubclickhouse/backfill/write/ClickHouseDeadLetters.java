package dev.pubsubclickhouse.backfill.write;

import dev.pubsubclickhouse.core.errors.ErrorTable;
import dev.pubsubclickhouse.core.errors.FailedRecord;
import java.util.List;

/**
 * Rejected rows into the ClickHouse error table (CLICKHOUSE_DEAD_LETTER_TABLE), as the push path.
 */
public final class ClickHouseDeadLetters implements DeadLetterSink {
  private final ErrorTable table;

  public ClickHouseDeadLetters(ErrorTable table) {
    this.table = table;
  }

  @Override
  public void write(List<RejectedRow> rows, String token) throws Exception {
    table.write(
        rows.stream()
            .map(
                r ->
                    new FailedRecord(
                        r.row(),
                        "source row " + r.position() + ": " + r.reason(),
                        "",
                        r.failedAt()))
            .toList());
  }

  @Override
  public String name() {
    return "ClickHouse error table " + table.table();
  }
}
