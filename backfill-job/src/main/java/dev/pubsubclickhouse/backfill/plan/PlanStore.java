package dev.pubsubclickhouse.backfill.plan;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.insert.InsertSettings;
import com.clickhouse.client.api.query.GenericRecord;
import com.clickhouse.data.ClickHouseFormat;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Settles one value per (execution, part) among the tasks of an execution: the first task to
 * propose a value wins, every other task (and every retry) gets the winner's.
 *
 * <p>How: each proposal is inserted with {@code insert_deduplication_token =
 * backfill-plan:<execution>:<part>} into a table that deduplicates inserts; ClickHouse keeps the
 * first insert of a token and drops every later one, whatever its data, atomically. Each task then
 * reads back the one row that was kept. A table that does not deduplicate (created by hand without
 * {@code non_replicated_deduplication_window}) would keep two different rows: that is found and
 * fails the task, never silently read.
 */
public final class PlanStore {
  /** Makes this task's proposal, only when no value is settled yet. */
  public interface Proposal {
    String make() throws Exception;
  }

  private static final String SELECT =
      "SELECT value FROM %s WHERE execution = {execution:String} AND part = {part:String}"
          + " ORDER BY written_at";

  private final Client client;
  private final TableName table;
  private final RowEncoder encoder;
  private final int taskIndex;
  private final Clock clock;

  private PlanStore(
      Client client, TableName table, RowEncoder encoder, int taskIndex, Clock clock) {
    this.client = client;
    this.table = table;
    this.encoder = encoder;
    this.taskIndex = taskIndex;
    this.clock = clock;
  }

  public static String createStatement(TableName table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table.quoted()
        + " (execution String, part String, value String, task_index UInt32,"
        + " written_at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY (execution, part)"
        + " SETTINGS non_replicated_deduplication_window = 10000";
  }

  /** Creates the table when missing. */
  public static PlanStore open(Client client, TableName table, int taskIndex, Clock clock)
      throws Exception {
    try (var created = client.execute(createStatement(table)).get()) {
      // DDL answers nothing worth reading.
    }
    RowEncoder encoder = RowEncoder.forTable(new SchemaReader(client).read(table));
    return new PlanStore(client, table, encoder, taskIndex, clock);
  }

  public TableName table() {
    return table;
  }

  /**
   * The value settled for (execution, part): an earlier one, or this task's proposal if it is the
   * first.
   */
  public String settle(String execution, String part, Proposal proposal) throws Exception {
    List<String> settled = read(execution, part);
    if (settled.isEmpty()) {
      insert(execution, part, proposal.make());
      settled = read(execution, part);
    }
    if (settled.isEmpty()) {
      throw new IllegalStateException(
          "plan table " + table + " did not keep the plan of execution " + execution);
    }
    if (settled.stream().distinct().count() > 1) {
      throw new IllegalStateException(
          "plan table "
              + table
              + " holds two different "
              + part
              + " plans for execution "
              + execution
              + ": it must deduplicate inserts (non_replicated_deduplication_window > 0, or a"
              + " Replicated table)");
    }
    return settled.get(0);
  }

  private List<String> read(String execution, String part) {
    List<GenericRecord> rows =
        client.queryAll(
            String.format(SELECT, table.quoted()), Map.of("execution", execution, "part", part));
    return rows.stream().map(r -> r.getString("value")).toList();
  }

  private void insert(String execution, String part, String value) throws Exception {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    row.put("execution", execution);
    row.put("part", part);
    row.put("value", value);
    row.put("task_index", taskIndex);
    row.put("written_at", clock.instant().toString());
    RowBinaryOutput out = new RowBinaryOutput();
    encoder.encode(row, out);
    InsertSettings settings =
        new InsertSettings().setDeduplicationToken("backfill-plan:" + execution + ":" + part);
    // The first insert of the token must win whatever the job's own insert settings say.
    settings.serverSetting("insert_deduplicate", "1");
    settings.serverSetting("async_insert", "0");
    List<String> columns = encoder.columnNames().stream().map(TableName::quoteIdentifier).toList();
    try (var response =
        client
            .insert(
                table.quoted(),
                columns,
                out::writeTo,
                ClickHouseFormat.RowBinaryWithDefaults,
                settings)
            .get(60, TimeUnit.SECONDS)) {
      // Written, or dropped as a later proposal: the read that follows tells which.
    }
  }
}
