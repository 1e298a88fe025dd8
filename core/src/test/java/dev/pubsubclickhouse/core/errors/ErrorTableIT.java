package dev.pubsubclickhouse.core.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertOptions;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

@ClickHouseTest
class ErrorTableIT {
  private final TestDatabase database;
  private final ClickHouseInserter inserter;

  ErrorTableIT(TestDatabase database) {
    this.database = database;
    this.inserter = new ClickHouseInserter(database.client(), InsertOptions.defaults());
  }

  private TableName table(String name) {
    return new TableName(database.name(), name);
  }

  @Test
  void failedRecordsAreWrittenInOneInsert() throws Exception {
    database.execute(ErrorTable.createStatement(table("errors")));
    ErrorTable errors = ErrorTable.open(database.client(), table("errors"), false, inserter);
    errors.write(
        List.of(
            new FailedRecord(
                "{\"a\":1}",
                "column 'a' rejects 1",
                "trace\tline",
                Instant.parse("2026-01-15T12:00:00Z")),
            new FailedRecord(
                "bm90IGpzb24=", "not JSON", "", Instant.parse("2026-01-15T12:00:01Z"))));
    assertThat(
            database.query(
                "SELECT raw_message, error_message, stack_trace, toUnixTimestamp(failed_at) FROM errors ORDER BY failed_at"))
        .isEqualTo(
            "{\"a\":1}\tcolumn \\'a\\' rejects 1\ttrace\\tline\t1768478400\n"
                + "bm90IGpzb24=\tnot JSON\t\t1768478401");
  }

  @Test
  void aMissingTableStopsStartWithAClearLine() {
    assertThatThrownBy(() -> ErrorTable.open(database.client(), table("absent"), false, inserter))
        .hasMessage(
            "error table "
                + database.name()
                + ".absent does not exist (create it, or set CREATE_ERROR_TABLE=true)");
  }

  @Test
  void aMissingTableIsCreatedWhenAsked() {
    ErrorTable.open(database.client(), table("created"), true, inserter);
    assertThat(
            database.query(
                "SELECT name, type FROM system.columns WHERE database = '"
                    + database.name()
                    + "' AND table = 'created' ORDER BY position"))
        .isEqualTo(
            "raw_message\tString\nerror_message\tString\nstack_trace\tString\nfailed_at\tDateTime");
  }

  @Test
  void aWrongColumnTypeStopsStart() {
    database.execute(
        "CREATE TABLE wrong_type (raw_message String, error_message String, stack_trace String, failed_at UInt32)"
            + " ENGINE = Memory");
    assertThatThrownBy(
            () -> ErrorTable.open(database.client(), table("wrong_type"), false, inserter))
        .hasMessage(
            "error table "
                + database.name()
                + ".wrong_type: column failed_at must be DateTime, not UInt32");
  }

  @Test
  void aMissingColumnStopsStart() {
    database.execute(
        "CREATE TABLE missing_column (raw_message String, error_message String, failed_at DateTime) ENGINE = Memory");
    assertThatThrownBy(
            () -> ErrorTable.open(database.client(), table("missing_column"), false, inserter))
        .hasMessage("error table " + database.name() + ".missing_column has no column stack_trace");
  }

  @Test
  void anExtraColumnWithoutDefaultStopsStart() {
    database.execute(
        "CREATE TABLE extra_column (raw_message String, error_message String, stack_trace String,"
            + " failed_at DateTime64(3), source String) ENGINE = Memory");
    assertThatThrownBy(
            () -> ErrorTable.open(database.client(), table("extra_column"), false, inserter))
        .hasMessage(
            "error table "
                + database.name()
                + ".extra_column: column source has no DEFAULT and is not Nullable, so error rows cannot fill it");
  }
}
