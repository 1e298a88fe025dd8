package dev.pubsubclickhouse.backfill.source;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * One page of rows read from BigQuery.
 *
 * @param startIndex the position of the first row in the source table
 * @param rows the rows, as objects keyed by column name
 * @param nextPageToken BigQuery's token for the next page, or null
 */
public record Page(long startIndex, List<ObjectNode> rows, String nextPageToken) {
  public long endIndex() {
    return startIndex + rows.size();
  }
}
