# Alerts and a dashboard.
#
# The alert policies use metrics Google Cloud records by itself (Pub/Sub, Cloud Run), so they work
# without any agent: the push backlog's age, messages reaching the dead-letter topic, dead letters
# nobody took care of (backlog or age), the 5xx rate, overload (429) and failed backfill
# executions. The dashboard's rows/inserts/insert-latency charts read the
# application's own Prometheus metrics (GET /metrics), which reach Cloud Monitoring either pushed
# by the service over OTLP (export_metrics_otlp, the default: the series' job label is the
# service.name the module sets, the Cloud Run service's name) or scraped by the Managed Service
# for Prometheus sidecar (enable_managed_prometheus: the sidecar labels them service_name). With
# neither those three charts stay empty and the rest still fill.

locals {
  push_subscription_filter = "resource.type = \"pubsub_subscription\" AND resource.labels.subscription_id = \"${google_pubsub_subscription.push.name}\""
  dead_letter_topic_filter = "resource.type = \"pubsub_topic\" AND resource.labels.topic_id = \"${google_pubsub_topic.dead_letter.name}\""
  ingest_topic_filter      = "resource.type = \"pubsub_topic\" AND resource.labels.topic_id = \"${google_pubsub_topic.ingest.name}\""
  run_service_filter       = "resource.type = \"cloud_run_revision\" AND resource.labels.service_name = \"${google_cloud_run_v2_service.ingest.name}\""
  dead_letter_sub_filter   = "resource.type = \"pubsub_subscription\" AND resource.labels.subscription_id = \"${google_pubsub_subscription.dead_letter.name}\""
  # The backlog alert comes at the given age, or at a fraction of the outage budget when that is
  # sooner: it must fire while the messages are still with Pub/Sub, not once they are dead letters.
  oldest_unacked_alert_seconds = min(var.alert_oldest_unacked_age_seconds, max(1, floor(local.outage_budget_seconds * var.alert_outage_budget_fraction)))
  prometheus_selector          = var.enable_managed_prometheus ? "{service_name=\"${google_cloud_run_v2_service.ingest.name}\"}" : "{job=\"${google_cloud_run_v2_service.ingest.name}\"}"

  # How an alert condition aligns each series and sums them: the largest value a minute (ages,
  # backlogs), what was added in 5 minutes (counts of events) or the rate a minute (request shares).
  alert_max_per_minute    = { alignment_period = "60s", per_series_aligner = "ALIGN_MAX", cross_series_reducer = null }
  alert_sum_per_5_minutes = { alignment_period = "300s", per_series_aligner = "ALIGN_DELTA", cross_series_reducer = "REDUCE_SUM" }
  alert_rate_per_minute   = { alignment_period = "60s", per_series_aligner = "ALIGN_RATE", cross_series_reducer = "REDUCE_SUM" }

  # The alert policies by name (google_monitoring_alert_policy.pipeline["NAME"]). Each condition
  # fires when its filter's series stays above threshold_value for duration; one with a
  # denominator_filter compares the ratio of the two, aggregated alike.
  alert_policies = {
    oldest_unacked_age = {
      display_name = "${local.service_name}: push backlog is getting old"
      severity     = "ERROR"
      conditions = [{
        display_name    = "Oldest unacked message on ${google_pubsub_subscription.push.name} older than ${local.oldest_unacked_alert_seconds}s (dead-lettered after about ${local.outage_budget_seconds}s)"
        filter          = "${local.push_subscription_filter} AND metric.type = \"pubsub.googleapis.com/subscription/oldest_unacked_message_age\""
        threshold_value = local.oldest_unacked_alert_seconds
        duration        = "300s"
        aggregations    = local.alert_max_per_minute
      }]
      documentation = "Messages wait on the push subscription longer than expected: the service answers non-2xx (ClickHouse unreachable, too many parts, memory limit) or is at max instances. Check the service's 5xx rate and logs, then ClickHouse. A message still not written about ${local.outage_budget_seconds} s after it was published (the retry policy's waits between ${var.max_delivery_attempts} attempts) goes to the dead-letter topic; once ClickHouse is back, bring those back with replay.jar subscription (README, Operate)."
    }

    # Everything published to the dead-letter topic: by the service (messages it cannot map) and by
    # Pub/Sub (messages past max_delivery_attempts), and Pub/Sub's own count of what it forwarded
    # from the push subscription.
    dead_letters = {
      display_name = "${local.service_name}: messages reached the dead-letter topic"
      severity     = "WARNING"
      conditions = [
        {
          display_name    = "Messages published to ${google_pubsub_topic.dead_letter.name}"
          filter          = "${local.dead_letter_topic_filter} AND metric.type = \"pubsub.googleapis.com/topic/send_message_operation_count\""
          threshold_value = var.alert_dead_letter_messages
          duration        = "0s"
          aggregations    = local.alert_sum_per_5_minutes
        },
        {
          display_name    = "Messages forwarded by Pub/Sub from ${google_pubsub_subscription.push.name}"
          filter          = "${local.push_subscription_filter} AND metric.type = \"pubsub.googleapis.com/subscription/dead_letter_message_count\""
          threshold_value = var.alert_dead_letter_messages
          duration        = "0s"
          aggregations    = local.alert_sum_per_5_minutes
        },
      ]
      documentation = "Messages are in the dead-letter pull subscription ${google_pubsub_subscription.dead_letter.name}. Inspect them (attributes errorMessage, failedAt) and replay once fixed: docs/deploy.md, Operate."
    }

    service_5xx = {
      display_name = "${local.service_name}: 5xx rate"
      severity     = "ERROR"
      conditions = [{
        display_name       = "More than ${var.alert_5xx_ratio * 100}% of requests to ${local.service_name} answer 5xx"
        filter             = "${local.run_service_filter} AND metric.type = \"run.googleapis.com/request_count\" AND metric.labels.response_code_class = \"5xx\""
        denominator_filter = "${local.run_service_filter} AND metric.type = \"run.googleapis.com/request_count\""
        threshold_value    = var.alert_5xx_ratio
        duration           = "300s"
        aggregations       = local.alert_rate_per_minute
      }]
      documentation = "The service answers 5xx: 503 means an INSERT failed for a transient reason (ClickHouse unreachable, timeout, memory limit, too many parts) and Pub/Sub will redeliver. Check ClickHouse and the service logs."
    }

    # Dead letters wait in the pull subscription until someone replays them, and only for
    # dead_letter_retention_seconds: alert when they pile up, and well before the oldest expires
    # (the precondition of the resource below).
    dead_letter_backlog = {
      display_name = "${local.service_name}: dead letters are piling up"
      severity     = "ERROR"
      conditions = [
        {
          display_name    = "More than ${var.alert_dead_letter_backlog} messages wait in ${google_pubsub_subscription.dead_letter.name}"
          filter          = "${local.dead_letter_sub_filter} AND metric.type = \"pubsub.googleapis.com/subscription/num_undelivered_messages\""
          threshold_value = var.alert_dead_letter_backlog
          duration        = "300s"
          aggregations    = local.alert_max_per_minute
        },
        {
          display_name    = "Oldest message in ${google_pubsub_subscription.dead_letter.name} older than ${var.alert_dead_letter_age_seconds}s (kept ${var.dead_letter_retention_seconds}s)"
          filter          = "${local.dead_letter_sub_filter} AND metric.type = \"pubsub.googleapis.com/subscription/oldest_unacked_message_age\""
          threshold_value = var.alert_dead_letter_age_seconds
          duration        = "300s"
          aggregations    = local.alert_max_per_minute
        },
      ]
      documentation = "Dead letters wait in ${google_pubsub_subscription.dead_letter.name} and are deleted after ${var.dead_letter_retention_seconds} s. Inspect them (attributes errorMessage, failedAt), fix the cause, and replay: docs/deploy.md, Operate."
    }

    # 429: the service's memory or queue bound is full (MAX_PENDING_BYTES, MAX_PENDING_MESSAGES), or
    # Cloud Run has no instance left (service_max_instances). Pub/Sub retries these, so a burst is
    # harmless; a sustained share means the pipeline takes less than arrives.
    service_overload = {
      display_name = "${local.service_name}: overloaded (429)"
      severity     = "WARNING"
      conditions = [{
        display_name       = "More than ${var.alert_429_ratio * 100}% of requests to ${local.service_name} answer 429"
        filter             = "${local.run_service_filter} AND metric.type = \"run.googleapis.com/request_count\" AND metric.labels.response_code = \"429\""
        denominator_filter = "${local.run_service_filter} AND metric.type = \"run.googleapis.com/request_count\""
        threshold_value    = var.alert_429_ratio
        duration           = "600s"
        aggregations       = local.alert_rate_per_minute
      }]
      documentation = "The service answers 429: it holds as many requests or bytes as it may (MAX_PENDING_MESSAGES, MAX_PENDING_BYTES), or Cloud Run has no instance left (service_max_instances). Pub/Sub redelivers them, nothing is lost, but the backlog grows. Raise service_max_instances, or check ClickHouse's INSERT latency."
    }
  }
  # Only with the backfill job, whose name is read only then.
  backfill_alert_policies = var.create_backfill_job ? {
    backfill_failed = {
      display_name = "${local.job_name}: backfill execution failed"
      severity     = "ERROR"
      conditions = [{
        display_name    = "A failed execution of ${local.job_name}"
        filter          = "resource.type = \"cloud_run_job\" AND resource.labels.job_name = \"${google_cloud_run_v2_job.backfill[0].name}\" AND metric.type = \"run.googleapis.com/job/completed_execution_count\" AND metric.labels.result = \"failed\""
        threshold_value = 0
        duration        = "0s"
        aggregations    = local.alert_sum_per_5_minutes
      }]
      documentation = "An execution of ${local.job_name} failed after its task retries: its last log line says why. Pages already written are recorded; executing it again resumes after them (docs/deploy.md, Run a backfill)."
    }
  } : null
}

resource "google_monitoring_alert_policy" "pipeline" {
  for_each = { for name, policy in merge(local.alert_policies, local.backfill_alert_policies) : name => policy if var.create_monitoring }

  project               = var.project_id
  display_name          = each.value.display_name
  combiner              = "OR"
  severity              = each.value.severity
  notification_channels = var.notification_channels
  user_labels           = var.labels

  dynamic "conditions" {
    for_each = each.value.conditions
    content {
      display_name = conditions.value.display_name
      condition_threshold {
        filter             = conditions.value.filter
        denominator_filter = lookup(conditions.value, "denominator_filter", null)
        comparison         = "COMPARISON_GT"
        threshold_value    = conditions.value.threshold_value
        duration           = conditions.value.duration
        aggregations {
          alignment_period     = conditions.value.aggregations.alignment_period
          per_series_aligner   = conditions.value.aggregations.per_series_aligner
          cross_series_reducer = conditions.value.aggregations.cross_series_reducer
        }
        # Decided by the condition's keys, known at plan time even while the filter's names are not.
        dynamic "denominator_aggregations" {
          for_each = contains(keys(conditions.value), "denominator_filter") ? [conditions.value.aggregations] : []
          content {
            alignment_period     = denominator_aggregations.value.alignment_period
            per_series_aligner   = denominator_aggregations.value.per_series_aligner
            cross_series_reducer = denominator_aggregations.value.cross_series_reducer
          }
        }
        trigger {
          count = 1
        }
      }
    }
  }

  documentation {
    mime_type = "text/markdown"
    content   = each.value.documentation
  }

  alert_strategy {
    auto_close = "1800s"
  }

  lifecycle {
    # For dead_letter_backlog; the policies come and go together, so each instance checks it.
    precondition {
      condition     = var.alert_dead_letter_age_seconds < var.dead_letter_retention_seconds
      error_message = "alert_dead_letter_age_seconds must be below dead_letter_retention_seconds, or the alert comes after the dead letters are gone."
    }
  }

  depends_on = [google_project_service.enabled]
}

# Cloud Monitoring samples the backlog's age every 60 s and the condition waits 300 s: with a
# retry policy that rides out less than that, messages are dead letters before any alert.
check "backlog_alert_before_dead_letters" {
  assert {
    condition     = !var.create_monitoring || local.oldest_unacked_alert_seconds + 360 < local.outage_budget_seconds
    error_message = "The push subscription rides out about ${local.outage_budget_seconds} s of ClickHouse outage (minimum_backoff_seconds, maximum_backoff_seconds, max_delivery_attempts), less than the backlog alert needs to fire (${local.oldest_unacked_alert_seconds} s + 360 s): messages reach the dead-letter topic first. Raise maximum_backoff_seconds or max_delivery_attempts."
  }
}

locals {
  # The dashboard's charts, two a row, half the width each, in this order.
  dashboard_widgets = [
    {
      title = "Ingest rate (messages published to ${google_pubsub_topic.ingest.name} / s)"
      xyChart = {
        dataSets = [{
          plotType = "LINE"
          timeSeriesQuery = {
            timeSeriesFilter = {
              filter = "${local.ingest_topic_filter} AND metric.type = \"pubsub.googleapis.com/topic/send_message_operation_count\""
              aggregation = {
                alignmentPeriod    = "60s"
                perSeriesAligner   = "ALIGN_RATE"
                crossSeriesReducer = "REDUCE_SUM"
              }
            }
          }
        }]
      }
    },
    {
      title = "Push requests by response class (/ s)"
      xyChart = {
        dataSets = [{
          plotType = "STACKED_AREA"
          timeSeriesQuery = {
            timeSeriesFilter = {
              filter = "${local.push_subscription_filter} AND metric.type = \"pubsub.googleapis.com/subscription/push_request_count\""
              aggregation = {
                alignmentPeriod    = "60s"
                perSeriesAligner   = "ALIGN_RATE"
                crossSeriesReducer = "REDUCE_SUM"
                groupByFields      = ["metric.labels.response_class"]
              }
            }
          }
        }]
      }
    },
    {
      title = "Rows inserted into ClickHouse (/ s; needs the Prometheus sidecar)"
      xyChart = {
        dataSets = [{
          plotType = "LINE"
          timeSeriesQuery = {
            prometheusQuery = "sum(rate(${var.app_metric_prefix}_inserted_rows_total${local.prometheus_selector}[5m]))"
          }
        }]
      }
    },
    {
      title = "INSERT statements, succeeded and failed (/ s; needs the Prometheus sidecar)"
      xyChart = {
        dataSets = [
          {
            plotType = "LINE"
            timeSeriesQuery = {
              prometheusQuery = "sum(rate(${var.app_metric_prefix}_inserts_total${local.prometheus_selector}[5m]))"
            }
          },
          {
            plotType = "LINE"
            timeSeriesQuery = {
              prometheusQuery = "sum(rate(${var.app_metric_prefix}_insert_failures_total${local.prometheus_selector}[5m]))"
            }
          },
        ]
      }
    },
    {
      title = "INSERT latency p50 / p99 (ms, retries included; needs the Prometheus sidecar)"
      xyChart = {
        dataSets = [
          {
            plotType = "LINE"
            timeSeriesQuery = {
              prometheusQuery = "histogram_quantile(0.5, sum by (le) (rate(${var.app_metric_prefix}_insert_latency_ms_bucket${local.prometheus_selector}[5m])))"
            }
          },
          {
            plotType = "LINE"
            timeSeriesQuery = {
              prometheusQuery = "histogram_quantile(0.99, sum by (le) (rate(${var.app_metric_prefix}_insert_latency_ms_bucket${local.prometheus_selector}[5m])))"
            }
          },
        ]
      }
    },
    {
      title = "Dead letters (published to ${google_pubsub_topic.dead_letter.name}; waiting in ${google_pubsub_subscription.dead_letter.name})"
      xyChart = {
        dataSets = [
          {
            plotType = "STACKED_BAR"
            timeSeriesQuery = {
              timeSeriesFilter = {
                filter = "${local.dead_letter_topic_filter} AND metric.type = \"pubsub.googleapis.com/topic/send_message_operation_count\""
                aggregation = {
                  alignmentPeriod    = "300s"
                  perSeriesAligner   = "ALIGN_DELTA"
                  crossSeriesReducer = "REDUCE_SUM"
                }
              }
            }
          },
          {
            plotType = "LINE"
            timeSeriesQuery = {
              timeSeriesFilter = {
                filter = "resource.type = \"pubsub_subscription\" AND resource.labels.subscription_id = \"${google_pubsub_subscription.dead_letter.name}\" AND metric.type = \"pubsub.googleapis.com/subscription/num_undelivered_messages\""
                aggregation = {
                  alignmentPeriod    = "300s"
                  perSeriesAligner   = "ALIGN_MAX"
                  crossSeriesReducer = "REDUCE_SUM"
                }
              }
            }
          },
        ]
      }
    },
    {
      title = "Oldest unacked message on ${google_pubsub_subscription.push.name} (s)"
      xyChart = {
        dataSets = [{
          plotType = "LINE"
          timeSeriesQuery = {
            timeSeriesFilter = {
              filter = "${local.push_subscription_filter} AND metric.type = \"pubsub.googleapis.com/subscription/oldest_unacked_message_age\""
              aggregation = {
                alignmentPeriod  = "60s"
                perSeriesAligner = "ALIGN_MAX"
              }
            }
          }
        }]
        thresholds = [{
          value = local.oldest_unacked_alert_seconds
          label = "alert"
        }]
      }
    },
    {
      title = "Cloud Run requests by response class (/ s) and instances"
      xyChart = {
        dataSets = [
          {
            plotType = "STACKED_AREA"
            timeSeriesQuery = {
              timeSeriesFilter = {
                filter = "${local.run_service_filter} AND metric.type = \"run.googleapis.com/request_count\""
                aggregation = {
                  alignmentPeriod    = "60s"
                  perSeriesAligner   = "ALIGN_RATE"
                  crossSeriesReducer = "REDUCE_SUM"
                  groupByFields      = ["metric.labels.response_code_class"]
                }
              }
            }
          },
          {
            plotType   = "LINE"
            targetAxis = "Y2"
            timeSeriesQuery = {
              timeSeriesFilter = {
                filter = "${local.run_service_filter} AND metric.type = \"run.googleapis.com/container/instance_count\""
                aggregation = {
                  alignmentPeriod    = "60s"
                  perSeriesAligner   = "ALIGN_MAX"
                  crossSeriesReducer = "REDUCE_SUM"
                }
              }
            }
          },
        ]
      }
    },
  ]
}

resource "google_monitoring_dashboard" "pipeline" {
  count = var.create_monitoring ? 1 : 0

  project = var.project_id
  dashboard_json = jsonencode({
    displayName = "Pub/Sub to ClickHouse: ${local.service_name}"
    mosaicLayout = {
      columns = 12
      tiles = [for i, widget in local.dashboard_widgets : {
        xPos   = i % 2 * 6
        yPos   = floor(i / 2) * 4
        width  = 6
        height = 4
        widget = widget
      }]
    }
  })

  depends_on = [google_project_service.enabled]
}

# Each policy was once a resource of its own: an existing deployment keeps its policies.
moved {
  from = google_monitoring_alert_policy.oldest_unacked_age[0]
  to   = google_monitoring_alert_policy.pipeline["oldest_unacked_age"]
}
moved {
  from = google_monitoring_alert_policy.dead_letters[0]
  to   = google_monitoring_alert_policy.pipeline["dead_letters"]
}
moved {
  from = google_monitoring_alert_policy.service_5xx[0]
  to   = google_monitoring_alert_policy.pipeline["service_5xx"]
}
moved {
  from = google_monitoring_alert_policy.dead_letter_backlog[0]
  to   = google_monitoring_alert_policy.pipeline["dead_letter_backlog"]
}
moved {
  from = google_monitoring_alert_policy.service_overload[0]
  to   = google_monitoring_alert_policy.pipeline["service_overload"]
}
moved {
  from = google_monitoring_alert_policy.backfill_failed[0]
  to   = google_monitoring_alert_policy.pipeline["backfill_failed"]
}
