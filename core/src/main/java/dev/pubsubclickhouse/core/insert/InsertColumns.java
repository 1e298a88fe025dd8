package dev.pubsubclickhouse.core.insert;

import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The columns one INSERT writes, in the order the rows hold them, with their types as ClickHouse
 * spells them in {@code system.columns}. Made once per reading of the table's schema; the SQL list
 * and the typed header every INSERT sends are built here once.
 */
public final class InsertColumns {
  private final List<String> names;
  private final List<String> types;
  private final boolean readsJsonAsString;
  private final String sqlList;
  private final byte[] typedHeader;

  /**
   * @param readsJsonAsString true when a JSON column is written as text (the INSERT must say so)
   */
  public InsertColumns(List<String> names, List<String> types, boolean readsJsonAsString) {
    this.names = List.copyOf(names);
    this.types = List.copyOf(types);
    if (this.names.size() != this.types.size() || this.names.isEmpty()) {
      throw new IllegalArgumentException("an INSERT needs one type per column, and a column");
    }
    this.readsJsonAsString = readsJsonAsString;
    this.sqlList =
        this.names.stream()
            .map(TableName::quoteIdentifier)
            .collect(Collectors.joining(", ", "(", ")"));
    RowBinaryOutput header = new RowBinaryOutput(32 * this.names.size());
    header.writeVarUInt(this.names.size());
    this.names.forEach(header::writeString);
    this.types.forEach(header::writeString);
    this.typedHeader = header.toByteArray();
  }

  public List<String> names() {
    return names;
  }

  public List<String> types() {
    return types;
  }

  public boolean readsJsonAsString() {
    return readsJsonAsString;
  }

  /** {@code (`a`, `b`)}: safe to put into SQL whatever the names hold. */
  public String sqlList() {
    return sqlList;
  }

  /**
   * The header of {@code RowBinaryWithNamesAndTypesAndDefaults}: the column count, the names, the
   * types. ClickHouse refuses the INSERT when a type differs from the table's, which is what keeps
   * rows encoded for an old schema out of a retyped column. Built once and shared: read it, never
   * write to it.
   */
  public byte[] typedHeader() {
    return typedHeader;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof InsertColumns that
        && names.equals(that.names)
        && types.equals(that.types)
        && readsJsonAsString == that.readsJsonAsString;
  }

  @Override
  public int hashCode() {
    return Objects.hash(names, types, readsJsonAsString);
  }

  @Override
  public String toString() {
    return "InsertColumns" + sqlList + " " + types + (readsJsonAsString ? " JSON as text" : "");
  }
}
