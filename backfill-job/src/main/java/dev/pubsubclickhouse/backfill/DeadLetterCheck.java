package dev.pubsubclickhouse.backfill;

import com.google.cloud.bigquery.BigQuery;
import com.google.cloud.bigquery.Dataset;
import com.google.cloud.bigquery.DatasetId;
import com.google.cloud.bigquery.Table;
import com.google.cloud.bigquery.TableId;
import dev.pubsubclickhouse.backfill.source.BigQueryRetry;
import dev.pubsubclickhouse.backfill.source.TableSpec;
import java.util.List;

/**
 * Checks at start, before any row is read, that the job can keep its dead letters in the BigQuery
 * dead-letter table: its dataset exists and is visible, and an existing table takes rows from this
 * account. A missing dataset or grant is one line naming the dataset, the permission and the
 * parameters that change it, instead of a failure on the first rejected row.
 */
final class DeadLetterCheck {
  static final String WRITE = "bigquery.tables.updateData";

  private DeadLetterCheck() {}

  /**
   * @throws IllegalStateException saying what is missing and how to fix it
   */
  static void check(BigQuery bigQuery, TableId table, BigQueryRetry retry)
      throws InterruptedException {
    DatasetId datasetId = DatasetId.of(table.getProject(), table.getDataset());
    String dataset = table.getProject() + ":" + table.getDataset();
    Dataset found;
    try {
      found = retry.call("datasets.get", dataset, () -> bigQuery.getDataset(datasetId));
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "the job cannot use its dead-letter dataset "
              + dataset
              + " ("
              + BigQueryRetry.describe(e)
              + "): grant its service account roles/bigquery.dataEditor on that dataset, or set"
              + " OUTPUT_DEADLETTER_DATASET / OUTPUT_DEADLETTER_TABLE (none turns dead letters"
              + " off)",
          e);
    }
    if (found == null) {
      throw new IllegalStateException(
          "the dead-letter dataset "
              + dataset
              + " does not exist: create it (Terraform's backfill job creates one and grants"
              + " roles/bigquery.dataEditor on it), or set OUTPUT_DEADLETTER_DATASET /"
              + " OUTPUT_DEADLETTER_TABLE (none turns dead letters off)");
    }
    Table existing =
        retry.call("tables.get", TableSpec.format(table), () -> bigQuery.getTable(table));
    if (existing == null) {
      return;
    }
    List<String> granted =
        retry.call(
            "tables.testIamPermissions",
            TableSpec.format(table),
            () -> bigQuery.testIamPermissions(table, List.of(WRITE)));
    if (granted == null || !granted.contains(WRITE)) {
      throw new IllegalStateException(
          "the job cannot write its dead letters into "
              + TableSpec.format(table)
              + ": its service account lacks "
              + WRITE
              + " (roles/bigquery.dataEditor on dataset "
              + dataset
              + ")");
    }
  }
}
