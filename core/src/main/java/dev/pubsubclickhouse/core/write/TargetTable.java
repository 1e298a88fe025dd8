package dev.pubsubclickhouse.core.write;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pubsubclickhouse.core.encode.ColumnSources;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.insert.InsertColumns;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.SchemaSource;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The target table's schema as last read, and the encoder for it. Read at start, again when an
 * INSERT says the table changed (a column dropped or retyped), and again when rows bring a field no
 * column takes (a column added by hand, which no INSERT would notice: one that names the old
 * columns succeeds), so none of these needs a restart. Thread-safe.
 */
public final class TargetTable {
  /** One message in this many is looked at for fields no column takes. */
  static final int LOOK_AT_ONE_MESSAGE_IN = 16;

  /** The schema is read again for fields no column takes at most this often. */
  static final Duration REREAD_AT_MOST_EVERY = Duration.ofSeconds(30);

  private final TableName name;
  private final SchemaSource reader;
  private final ColumnSources sources;
  private volatile Snapshot current;
  private final AtomicInteger messages = new AtomicInteger();
  private final AtomicLong nextRereadNanos = new AtomicLong(System.nanoTime());

  /**
   * One reading of the schema: the encoder, the columns it writes, and every column's definition.
   * Snapshots compare by identity: a new one means the schema changed.
   */
  public static final class Snapshot {
    private final RowEncoder encoder;
    private final Set<String> columns;
    private final TableSchema schema;
    private final InsertColumns insertColumns;

    Snapshot(TableSchema schema, ColumnSources sources) {
      this.schema = schema;
      this.encoder = RowEncoder.forTable(schema, sources);
      this.columns = Set.copyOf(encoder.columnNames());
      this.insertColumns =
          new InsertColumns(
              encoder.columnNames(), encoder.columnTypes(), encoder.readsJsonAsString());
    }

    public RowEncoder encoder() {
      return encoder;
    }

    /** The names of the columns an INSERT writes. */
    public Set<String> columns() {
      return columns;
    }

    public List<ColumnDefinition> definitions() {
      return schema.columns();
    }

    public InsertColumns insertColumns() {
      return insertColumns;
    }

    /** The table's engine as {@code system.tables} names it. */
    public String engine() {
      return schema.engine();
    }

    /** The table is Distributed ({@link TableSchema#distributed}). */
    public boolean distributed() {
      return schema.distributed();
    }

    /** The table's engine stores the rows it is given ({@link TableSchema#keepsRows}). */
    public boolean keepsRows() {
      return schema.keepsRows();
    }

    /** The same columns and engine as {@code other}. */
    boolean describesTheSameTableAs(TableSchema other) {
      return other.columns().equals(schema.columns()) && other.engine().equals(schema.engine());
    }
  }

  /** Reads the schema now; fails when the table is missing or has a type that cannot be written. */
  public TargetTable(TableName name, SchemaSource reader) {
    this(name, reader, ColumnSources.BY_NAME);
  }

  /** As above, the columns {@code sources} maps taking their values from their paths. */
  public TargetTable(TableName name, SchemaSource reader, ColumnSources sources) {
    this.name = name;
    this.reader = reader;
    this.sources = sources;
    this.current = new Snapshot(reader.read(name), sources);
  }

  public TableName name() {
    return name;
  }

  public Snapshot current() {
    return current;
  }

  /**
   * The schema to encode a message's {@code rows} with: the current one, or the schema read again
   * when a row has a field no column takes, at most every {@link #REREAD_AT_MOST_EVERY} and looking
   * at one message in {@link #LOOK_AT_ONE_MESSAGE_IN} (a look costs a lookup per field). A reading
   * that fails keeps the current schema; the next look tries again.
   */
  public Snapshot forRows(List<JsonNode> rows) {
    Snapshot snapshot = current;
    if (messages.getAndIncrement() % LOOK_AT_ONE_MESSAGE_IN != 0) {
      return snapshot;
    }
    long due = nextRereadNanos.get();
    long now = System.nanoTime();
    if (now - due < 0
        || rows.stream().allMatch(row -> snapshot.encoder.unplacedFields(row).isEmpty())
        || !nextRereadNanos.compareAndSet(due, now + REREAD_AT_MOST_EVERY.toNanos())) {
      return snapshot;
    }
    try {
      return refresh();
    } catch (RuntimeException e) {
      return snapshot;
    }
  }

  /**
   * Reads the schema again; keeps the current snapshot when nothing changed, so that callers can
   * tell a change by identity.
   */
  public synchronized Snapshot refresh() {
    TableSchema fresh = reader.read(name);
    if (!current.describesTheSameTableAs(fresh)) {
      current = new Snapshot(fresh, sources);
    }
    return current;
  }

  /** True when ClickHouse still describes the table (columns, engine) as read. */
  public boolean unchangedSince(Snapshot snapshot) {
    return snapshot.describesTheSameTableAs(reader.read(name));
  }
}
