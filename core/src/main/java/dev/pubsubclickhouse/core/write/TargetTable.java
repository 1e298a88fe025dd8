package dev.pubsubclickhouse.core.write;

import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.insert.InsertColumns;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.SchemaSource;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.util.List;
import java.util.Set;

/**
 * The target table's schema as last read, and the encoder for it. Read at start and again when an
 * INSERT says the table changed, so a column added, dropped or retyped needs no restart.
 * Thread-safe.
 */
public final class TargetTable {
  private final TableName name;
  private final SchemaSource reader;
  private volatile Snapshot current;

  /**
   * One reading of the schema: the encoder, the columns it writes, and every column's definition.
   * Snapshots compare by identity: a new one means the schema changed.
   */
  public static final class Snapshot {
    private final RowEncoder encoder;
    private final Set<String> columns;
    private final List<ColumnDefinition> definitions;
    private final InsertColumns insertColumns;
    private final boolean distributed;

    Snapshot(RowEncoder encoder, List<ColumnDefinition> definitions, boolean distributed) {
      this.encoder = encoder;
      this.distributed = distributed;
      this.columns = Set.copyOf(encoder.columnNames());
      this.definitions = List.copyOf(definitions);
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
      return definitions;
    }

    public InsertColumns insertColumns() {
      return insertColumns;
    }

    /** The table is Distributed ({@link TableSchema#distributed}). */
    public boolean distributed() {
      return distributed;
    }
  }

  /** Reads the schema now; fails when the table is missing or has a type that cannot be written. */
  public TargetTable(TableName name, SchemaSource reader) {
    this.name = name;
    this.reader = reader;
    this.current = read();
  }

  public TableName name() {
    return name;
  }

  public Snapshot current() {
    return current;
  }

  /**
   * Reads the schema again; keeps the current snapshot when nothing changed, so that callers can
   * tell a change by identity.
   */
  public synchronized Snapshot refresh() {
    Snapshot fresh = read();
    if (!fresh.definitions.equals(current.definitions)
        || fresh.distributed != current.distributed) {
      current = fresh;
    }
    return current;
  }

  /** True when ClickHouse still describes the table (columns, Distributed or not) as read. */
  public boolean unchangedSince(Snapshot snapshot) {
    TableSchema schema = reader.read(name);
    return schema.columns().equals(snapshot.definitions)
        && schema.distributed() == snapshot.distributed;
  }

  private Snapshot read() {
    TableSchema schema = reader.read(name);
    return new Snapshot(RowEncoder.forTable(schema), schema.columns(), schema.distributed());
  }
}
