package dev.pubsubclickhouse.backfill.source;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.cloud.bigquery.TableId;
import java.util.ArrayList;
import java.util.List;

/**
 * A task's range of a table's rows, read with tabledata.list in pages of {@code pageRows} rows cut
 * from row 0 of the table (see {@link RowRange#forTask}): a page's rows, and so its deduplication
 * token and its checkpoint, do not depend on where the task's range starts. The first request of a
 * part is at its position, the next ones follow BigQuery's page tokens; answers shorter than asked
 * (BigQuery caps an answer's size) are gathered into the page they belong to.
 */
public record TableRange(PageReader reader, TableId table, RowRange range, int pageRows, String key)
    implements ReadUnit {

  @Override
  public long knownRows() {
    return range.size();
  }

  @Override
  public void read(RowRange part, PageSink pages) throws Exception {
    long position = part.start();
    String token = null;
    while (position < part.end()) {
      long pageEnd = Math.min((position / pageRows + 1) * pageRows, part.end());
      List<ObjectNode> rows = new ArrayList<>((int) (pageEnd - position));
      while (position + rows.size() < pageEnd) {
        long at = position + rows.size();
        int want = (int) (pageEnd - at);
        Page answer = reader.read(table, at, token, want);
        if (answer.rows().isEmpty()) {
          throw new SourceException(
              "BigQuery returned no rows at position "
                  + at
                  + " of "
                  + range
                  + " of "
                  + TableSpec.format(table)
                  + ": the execution's snapshot has changed under this task");
        }
        if (answer.rows().size() > want) {
          // A server that ignores maxResults: keep the page, and this task, inside their rows.
          rows.addAll(answer.rows().subList(0, want));
          token = null;
        } else {
          rows.addAll(answer.rows());
          token = answer.nextPageToken();
        }
      }
      pages.accept(new Page(position, rows, token));
      position = pageEnd;
    }
  }
}
