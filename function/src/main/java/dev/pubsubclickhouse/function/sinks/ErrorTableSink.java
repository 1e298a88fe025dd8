package dev.pubsubclickhouse.function.sinks;

import dev.pubsubclickhouse.core.errors.ErrorTable;
import dev.pubsubclickhouse.core.errors.FailedRecord;
import java.util.List;

/** Failures as rows of the ClickHouse error table, one INSERT per batch. */
public final class ErrorTableSink implements ErrorSink {
  private final ErrorTable table;

  public ErrorTableSink(ErrorTable table) {
    this.table = table;
  }

  @Override
  public void write(List<FailedMessage> failures) throws Exception {
    List<FailedRecord> records = failures.stream().map(FailedMessage::record).toList();
    table.write(records);
  }

  @Override
  public String name() {
    return "error table " + table.table();
  }
}
