# The backfill job's own BigQuery dataset for dead letters. Without an explicit
# backfill_output_deadletter_table, the job writes the rows ClickHouse rejects to
# <input table>_error_records (query_error_records for a query) in OUTPUT_DEADLETTER_DATASET, and
# creates that table when missing: the job may write here and only read its sources.

resource "google_bigquery_dataset" "backfill_dead_letters" {
  count = var.create_backfill_job ? 1 : 0

  project       = var.project_id
  dataset_id    = coalesce(var.backfill_dead_letter_dataset_id, "${replace(var.name_prefix, "-", "_")}_backfill_dead_letters")
  friendly_name = "Backfill dead letters (${local.job_name})"
  description   = "Rows the backfill job ${local.job_name} could not write to ClickHouse, with the error (the Dataflow templates' dead-letter columns)."
  location      = coalesce(var.backfill_dead_letter_dataset_location, var.region)
  labels        = var.labels

  dynamic "default_encryption_configuration" {
    for_each = var.kms_key_name == null ? [] : [var.kms_key_name]
    content {
      kms_key_name = default_encryption_configuration.value
    }
  }

  # Dead letters are data to replay: destroying the configuration must not drop them.
  delete_contents_on_destroy = false

  depends_on = [google_project_service.enabled]
}

resource "google_bigquery_dataset_iam_member" "backfill_dead_letters_editor" {
  count = var.create_backfill_job ? 1 : 0

  project    = var.project_id
  dataset_id = google_bigquery_dataset.backfill_dead_letters[0].dataset_id
  role       = "roles/bigquery.dataEditor"
  member     = "serviceAccount:${google_service_account.backfill[0].email}"
}
