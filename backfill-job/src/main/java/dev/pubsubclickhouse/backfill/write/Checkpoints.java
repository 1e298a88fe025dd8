package dev.pubsubclickhouse.backfill.write;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.backfill.source.RowRange;
import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.encode.RowRejectedException;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.InsertColumns;
import dev.pubsubclickhouse.core.insert.InsertException;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * A small ClickHouse table that records each page once it is written (rows inserted and rejected
 * rows dead-lettered), so a re-run of the same source into the same table starts after the pages
 * already done. One row per page: (target, source fingerprint, start_index, row_count, ...).
 */
public final class Checkpoints {
  /**
   * One page done.
   *
   * @param unit the read unit's key (the source and, for a stream, which one)
   * @param startIndex the page's first position in the unit
   * @param rowCount rows read for the page
   * @param written rows ClickHouse took
   * @param rejected rows dead-lettered instead
   */
  public record PageRecord(
      String unit, long startIndex, long rowCount, long written, long rejected) {}

  /** Which task of which execution writes the records, into which target. */
  public record Writer(String target, int taskIndex, int taskCount, String execution) {}

  private static final String COVERED_QUERY =
      "SELECT start_index, row_count FROM %s WHERE target = {target:String}"
          + " AND source = {source:String} AND start_index < {end:UInt64}"
          + " AND start_index + row_count > {start:UInt64} ORDER BY start_index";

  private final Client client;
  private final TableName table;
  private final RowEncoder encoder;
  private final ClickHouseInserter inserter;
  private final Writer writer;
  private final Clock clock;

  private Checkpoints(
      Client client,
      TableName table,
      RowEncoder encoder,
      ClickHouseInserter inserter,
      Writer writer,
      Clock clock) {
    this.client = client;
    this.table = table;
    this.encoder = encoder;
    this.inserter = inserter;
    this.writer = writer;
    this.clock = clock;
  }

  public static String createStatement(TableName table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table.quoted()
        + " (target String, source String, start_index UInt64, row_count UInt64,"
        + " written UInt64, rejected UInt64, task_index UInt32, task_count UInt32,"
        + " execution String, written_at DateTime64(3, 'UTC'))"
        + " ENGINE = MergeTree ORDER BY (target, source, start_index)";
  }

  /** Creates the table when missing. */
  public static Checkpoints open(
      Client client, TableName table, ClickHouseInserter inserter, Writer writer, Clock clock)
      throws Exception {
    try (var created = client.execute(createStatement(table)).get()) {
      // DDL answers nothing worth reading.
    }
    RowEncoder encoder = RowEncoder.forTable(new SchemaReader(client).read(table));
    return new Checkpoints(client, table, encoder, inserter, writer, clock);
  }

  public TableName table() {
    return table;
  }

  /**
   * Where this range's work resumes: after the pages already recorded from its start on, without a
   * gap. Returns {@code range.start()} when nothing was recorded.
   */
  public long resumePosition(String source, RowRange range) {
    List<GenericRecord> pages =
        client.queryAll(
            String.format(COVERED_QUERY, table.quoted()),
            Map.of(
                "target",
                writer.target(),
                "source",
                source,
                "start",
                Long.toString(range.start()),
                "end",
                Long.toString(range.end())));
    long position = range.start();
    for (GenericRecord page : pages) {
      long start = page.getLong("start_index");
      long rows = page.getLong("row_count");
      if (start > position) {
        break;
      }
      position = Math.max(position, start + rows);
    }
    return Math.min(position, range.end());
  }

  /** Records one page as done. */
  public void record(PageRecord page) throws InsertException, InterruptedException {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    row.put("target", writer.target());
    row.put("source", page.unit());
    row.put("start_index", page.startIndex());
    row.put("row_count", page.rowCount());
    row.put("written", page.written());
    row.put("rejected", page.rejected());
    row.put("task_index", writer.taskIndex());
    row.put("task_count", writer.taskCount());
    row.put("execution", writer.execution());
    row.put("written_at", clock.instant().toString());
    RowBinaryOutput out = new RowBinaryOutput();
    try {
      encoder.encode(row, out);
    } catch (RowRejectedException e) {
      throw new IllegalStateException("checkpoint table " + table + ": " + e.getMessage());
    }
    inserter.insert(
        table,
        new InsertColumns(
            encoder.columnNames(), encoder.columnTypes(), encoder.readsJsonAsString()),
        out,
        null);
  }
}
