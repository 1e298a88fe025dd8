package dev.pubsubclickhouse.core.insert;

import dev.pubsubclickhouse.core.encode.RowBinaryOutput;
import dev.pubsubclickhouse.core.schema.TableName;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The columns one INSERT writes, in the order the rows hold them, with their types as ClickHouse
 * spells them in {@code system.columns}.
 *
 * @param readsJsonAsString true when a JSON column is written as text (the INSERT must say so)
 */
public record InsertColumns(List<String> names, List<String> types, boolean readsJsonAsString) {
  public InsertColumns {
    names = List.copyOf(names);
    types = List.copyOf(types);
    if (names.size() != types.size() || names.isEmpty()) {
      throw new IllegalArgumentException("an INSERT needs one type per column, and a column");
    }
  }

  /** {@code (`a`, `b`)}: safe to put into SQL whatever the names hold. */
  public String sqlList() {
    return names.stream()
        .map(TableName::quoteIdentifier)
        .collect(Collectors.joining(", ", "(", ")"));
  }

  /**
   * The header of {@code RowBinaryWithNamesAndTypesAndDefaults}: the column count, the names, the
   * types. ClickHouse refuses the INSERT when a type differs from the table's, which is what keeps
   * rows encoded for an old schema out of a retyped column.
   */
  public byte[] typedHeader() {
    RowBinaryOutput header = new RowBinaryOutput(32 * names.size());
    header.writeVarUInt(names.size());
    names.forEach(header::writeString);
    types.forEach(header::writeString);
    return header.toByteArray();
  }
}
