package dev.pubsubclickhouse.backfill.source;

import com.google.cloud.bigquery.TableId;

/**
 * A task's range of a table's rows, read with tabledata.list: the first page at its position, the
 * next ones with BigQuery's page tokens.
 */
public final class TableRange implements ReadUnit {
  private final PageReader reader;
  private final TableId table;
  private final RowRange range;
  private final int pageRows;
  private final String key;

  public TableRange(PageReader reader, TableId table, RowRange range, int pageRows, String key) {
    this.reader = reader;
    this.table = table;
    this.range = range;
    this.pageRows = pageRows;
    this.key = key;
  }

  @Override
  public String key() {
    return key;
  }

  @Override
  public RowRange range() {
    return range;
  }

  @Override
  public long knownRows() {
    return range.size();
  }

  @Override
  public void read(long from, PageSink pages) throws Exception {
    long position = from;
    String token = null;
    while (position < range.end()) {
      int want = (int) Math.min(pageRows, range.end() - position);
      Page page = reader.read(table, position, token, want);
      int rows = page.rows().size();
      if (rows == 0) {
        throw new SourceException(
            "BigQuery returned no rows at position "
                + position
                + " of "
                + range
                + " of "
                + TableSpec.format(table)
                + ": the execution's snapshot has changed under this task");
      }
      token = page.nextPageToken();
      if (rows > want) {
        // A server that ignores maxResults: keep this task inside its range.
        page = new Page(position, page.rows().subList(0, want), null);
        rows = want;
        token = null;
      } else if (page.startIndex() != position) {
        page = new Page(position, page.rows(), token);
      }
      position += rows;
      pages.accept(page);
    }
  }
}
