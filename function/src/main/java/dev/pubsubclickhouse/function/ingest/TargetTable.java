package dev.pubsubclickhouse.function.ingest;

import dev.pubsubclickhouse.core.encode.RowEncoder;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableSchema;
import java.util.List;
import java.util.Set;

/**
 * The target table's current schema and encoder. Read at start and read again when an INSERT says
 * the table changed, so a column added, dropped or retyped needs no restart.
 */
public final class TargetTable {
  private final TableName name;
  private final SchemaReader reader;
  private volatile Snapshot current;

  /** The encoder and the column types of one reading of the schema. */
  public record Snapshot(
      RowEncoder encoder, Set<String> columns, List<ColumnDefinition> definitions) {}

  public TargetTable(TableName name, SchemaReader reader) {
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

  /** Reads the schema again; the new encoder is used from now on. */
  public synchronized Snapshot refresh() {
    current = read();
    return current;
  }

  /**
   * Reads the schema again and keeps the old snapshot when nothing changed, so that callers can
   * compare snapshots by identity.
   */
  public synchronized Snapshot refreshIfChanged() {
    Snapshot fresh = read();
    if (!fresh.definitions().equals(current.definitions())) {
      current = fresh;
    }
    return current;
  }

  private Snapshot read() {
    TableSchema schema = reader.read(name);
    RowEncoder encoder = RowEncoder.forTable(schema);
    return new Snapshot(encoder, Set.copyOf(encoder.columnNames()), schema.columns());
  }
}
