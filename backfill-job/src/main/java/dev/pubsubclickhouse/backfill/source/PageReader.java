package dev.pubsubclickhouse.backfill.source;

import com.google.cloud.bigquery.TableId;

/** Reads one page of a table with tabledata.list. */
public interface PageReader {
  /**
   * @param startIndex the first row's position, used when {@code pageToken} is null
   * @param pageToken the previous page's token, or null
   * @param maxRows at most this many rows (BigQuery may send fewer)
   */
  Page read(TableId table, long startIndex, String pageToken, int maxRows)
      throws InterruptedException;
}
