package dev.pubsubclickhouse.backfill.write;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.query.GenericRecord;
import com.fasterxml.jackson.databind.node.ArrayNode;
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
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small ClickHouse table, the job's ledger of what it wrote into each target, so that a retried
 * task or a new execution of the same unchanged source resumes after what is done and writes
 * nothing twice. Rows are appended, never changed:
 *
 * <ul>
 *   <li>{@code page}: a page is done: its rows inserted, and those the table refused dead-lettered;
 *       the refused rows themselves are kept (their positions, the rows as read, whether a
 *       dead-letter sink holds them, and the target's definition that refused them), so a later run
 *       can write them when the table takes them;
 *   <li>{@code recovery}: a later run wrote some of a page's refused rows; it lists the ones still
 *       refused. A page's newest record says what of it is still missing from the target;
 *   <li>{@code end}: a read stream was read to its end (a stream's length is known only then).
 * </ul>
 *
 * Every record names its target, its read unit ({@code source}: the key of a row range or a read
 * stream) and its {@code origin}: what the unit reads, the same string for every execution that
 * reads the same unchanged source.
 */
public final class Checkpoints {
  /**
   * Rows of a page that are not in the target because the table refused them.
   *
   * @param positions their positions in the unit, ascending
   * @param rows the rows as read ({@link RowText}), in the same order
   * @param kept whether the dead-letter sinks hold them
   * @param targetVersion the target's definition that refused them ({@link TargetVersion})
   */
  public record Refused(
      List<Long> positions, List<String> rows, boolean kept, String targetVersion) {
    public static final Refused NONE = new Refused(List.of(), List.of(), true, "");

    public Refused {
      if (positions.size() != rows.size()) {
        throw new IllegalArgumentException("refused positions and rows differ in number");
      }
      positions = List.copyOf(positions);
      rows = List.copyOf(rows);
    }
  }

  /**
   * One page done, or a later run's work on its refused rows.
   *
   * @param unit the read unit's key (the source and, for a stream, which one)
   * @param origin what the unit reads, the same for every execution of the same source
   * @param startIndex the page's first position in the unit
   * @param rowCount rows read for the page
   * @param written rows ClickHouse took (for a recovery: rows refused before, taken now)
   * @param refused the page's rows still not in the target
   */
  public record PageRecord(
      String unit, String origin, long startIndex, long rowCount, long written, Refused refused) {}

  /**
   * A page with rows still refused, as its newest record says.
   *
   * @param refused how many
   */
  public record RefusedPage(
      String unit,
      long startIndex,
      long rowCount,
      int refused,
      boolean kept,
      String targetVersion) {}

  /** Which task of which execution writes the records, into which target. */
  public record Writer(String target, int taskIndex, int taskCount, String execution) {}

  /**
   * The columns, in order, with their types: the CREATE TABLE and the upgrade of an older table.
   */
  private static final Map<String, String> COLUMNS = columns();

  private static final String COVERED_QUERY =
      "SELECT start_index, row_count FROM %s WHERE target = {target:String}"
          + " AND source = {source:String} AND kind != 'end' AND start_index < {end:UInt64}"
          + " AND start_index + row_count > {start:UInt64} ORDER BY start_index";

  private static final String FINISHED_QUERY =
      "SELECT DISTINCT source FROM %s WHERE target = {target:String} AND origin = {origin:String}"
          + " AND kind = 'end'";

  /** A page's newest record wins; a recovery record beats a page record of the same instant. */
  private static final String NEWEST =
      "(SELECT *, (written_at, kind = 'recovery') AS newest FROM %s WHERE target = {target:String}"
          + " AND origin = {origin:String} AND kind != 'end'%s)";

  private static final String REFUSED_PAGES_QUERY =
      "SELECT source, start_index, argMax(row_count, newest) AS rows,"
          + " argMax(length(refused_positions), newest) AS refused,"
          + " argMax(refusals_kept, newest) AS kept, argMax(target_version, newest) AS version"
          + " FROM %s GROUP BY source, start_index"
          + " HAVING refused > 0 AND cityHash64(source, start_index) %% {tasks:UInt32} = {task:UInt32}"
          + " ORDER BY source, start_index";

  private static final String REFUSED_ROWS_QUERY =
      "SELECT position, row FROM (SELECT argMax(refused_positions, newest) AS positions,"
          + " argMax(refused_rows, newest) AS rows FROM %s)"
          + " ARRAY JOIN positions AS position, rows AS row ORDER BY position";

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

  private static Map<String, String> columns() {
    Map<String, String> columns = new LinkedHashMap<>();
    columns.put("target", "String");
    columns.put("source", "String");
    columns.put("start_index", "UInt64");
    columns.put("row_count", "UInt64");
    columns.put("written", "UInt64");
    columns.put("rejected", "UInt64");
    columns.put("task_index", "UInt32");
    columns.put("task_count", "UInt32");
    columns.put("execution", "String");
    columns.put("written_at", "DateTime64(3, 'UTC')");
    columns.put("origin", "String DEFAULT ''");
    columns.put("kind", "String DEFAULT 'page'");
    columns.put("refused_positions", "Array(UInt64)");
    columns.put("refused_rows", "Array(String)");
    columns.put("refusals_kept", "Bool DEFAULT true");
    columns.put("target_version", "String DEFAULT ''");
    return columns;
  }

  public static String createStatement(TableName table) {
    List<String> columns = new ArrayList<>();
    COLUMNS.forEach((name, type) -> columns.add(name + " " + type));
    return "CREATE TABLE IF NOT EXISTS "
        + table.quoted()
        + " ("
        + String.join(", ", columns)
        + ") ENGINE = MergeTree ORDER BY (target, source, start_index)";
  }

  /** Creates the table when missing, and adds the columns an older version of the job lacked. */
  public static Checkpoints open(
      Client client, TableName table, ClickHouseInserter inserter, Writer writer, Clock clock)
      throws Exception {
    try (var created = client.execute(createStatement(table)).get()) {
      // DDL answers nothing worth reading.
    }
    SchemaReader reader = new SchemaReader(client);
    TableSchema schema = reader.read(table);
    List<String> missing = new ArrayList<>();
    COLUMNS.forEach(
        (name, type) -> {
          if (schema.column(name).isEmpty()) {
            missing.add("ADD COLUMN IF NOT EXISTS " + name + " " + type);
          }
        });
    if (!missing.isEmpty()) {
      try (var altered =
          client
              .execute("ALTER TABLE " + table.quoted() + " " + String.join(", ", missing))
              .get()) {
        // DDL answers nothing worth reading.
      }
    }
    RowEncoder encoder = RowEncoder.forTable(reader.read(table));
    return new Checkpoints(client, table, encoder, inserter, writer, clock);
  }

  public TableName table() {
    return table;
  }

  /**
   * The parts of {@code range} that no recorded page of unit {@code source} covers, in order: what
   * is left to write. A retried task finds one part, after its pages; a new execution with another
   * task count may find several, where the last execution's tasks stopped part way.
   */
  public List<RowRange> unwritten(String source, RowRange range) {
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
    List<RowRange> unwritten = new ArrayList<>();
    long position = range.start();
    for (GenericRecord page : pages) {
      long start = page.getLong("start_index");
      if (start > position) {
        unwritten.add(new RowRange(position, start));
      }
      position = Math.max(position, Math.min(start + page.getLong("row_count"), range.end()));
    }
    if (position < range.end()) {
      unwritten.add(new RowRange(position, range.end()));
    }
    return unwritten;
  }

  /** The units of {@code origin} that were read to their end ({@link #recordEnd}). */
  public Set<String> finishedUnits(String origin) {
    Set<String> finished = new HashSet<>();
    for (GenericRecord unit :
        client.queryAll(
            String.format(FINISHED_QUERY, table.quoted()),
            Map.of("target", writer.target(), "origin", origin))) {
      finished.add(unit.getString("source"));
    }
    return finished;
  }

  /**
   * The pages of {@code origin} with rows still refused, this task's share of them: each page
   * belongs to one task of the execution, by a hash of its unit and position.
   */
  public List<RefusedPage> refusedPages(String origin) {
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("target", writer.target());
    parameters.put("origin", origin);
    parameters.put("tasks", Integer.toString(writer.taskCount()));
    parameters.put("task", Integer.toString(writer.taskIndex()));
    List<RefusedPage> pages = new ArrayList<>();
    for (GenericRecord page :
        client.queryAll(
            String.format(REFUSED_PAGES_QUERY, String.format(NEWEST, table.quoted(), "")),
            parameters)) {
      pages.add(
          new RefusedPage(
              page.getString("source"),
              page.getLong("start_index"),
              page.getLong("rows"),
              (int) page.getLong("refused"),
              page.getBoolean("kept"),
              page.getString("version")));
    }
    return pages;
  }

  /** The rows of a page still refused, as its newest record keeps them. */
  public Refused refusedRows(String origin, RefusedPage page) {
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("target", writer.target());
    parameters.put("origin", origin);
    parameters.put("source", page.unit());
    parameters.put("start", Long.toString(page.startIndex()));
    String newest =
        String.format(
            NEWEST,
            table.quoted(),
            " AND source = {source:String} AND start_index = {start:UInt64}");
    List<Long> positions = new ArrayList<>();
    List<String> rows = new ArrayList<>();
    for (GenericRecord row :
        client.queryAll(String.format(REFUSED_ROWS_QUERY, newest), parameters)) {
      positions.add(row.getLong("position"));
      rows.add(row.getString("row"));
    }
    return new Refused(positions, rows, page.kept(), page.targetVersion());
  }

  /** Records one page as done. */
  public void record(PageRecord page) throws InsertException, InterruptedException {
    insert("page", page);
  }

  /** Records what a later run did with a page's refused rows. */
  public void recordRecovery(PageRecord page) throws InsertException, InterruptedException {
    insert("recovery", page);
  }

  /** Records that a unit was read to its end, at {@code position}. */
  public void recordEnd(String unit, String origin, long position)
      throws InsertException, InterruptedException {
    insert("end", new PageRecord(unit, origin, position, 0, 0, Refused.NONE));
  }

  private void insert(String kind, PageRecord page) throws InsertException, InterruptedException {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    row.put("target", writer.target());
    row.put("source", page.unit());
    row.put("start_index", page.startIndex());
    row.put("row_count", page.rowCount());
    row.put("written", page.written());
    row.put("rejected", page.refused().positions().size());
    row.put("task_index", writer.taskIndex());
    row.put("task_count", writer.taskCount());
    row.put("execution", writer.execution());
    row.put("written_at", clock.instant().toString());
    row.put("origin", page.origin());
    row.put("kind", kind);
    ArrayNode positions = row.putArray("refused_positions");
    page.refused().positions().forEach(positions::add);
    ArrayNode rows = row.putArray("refused_rows");
    page.refused().rows().forEach(rows::add);
    row.put("refusals_kept", page.refused().kept());
    row.put("target_version", page.refused().targetVersion());
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
