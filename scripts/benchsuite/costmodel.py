"""The cost model: measured CPU per message turned into Cloud Run and Dataflow bills."""

# Price inputs of the cost model: published list prices, us-central1 (Tier 1), as of 2025-06.
# Not fetched (no web access here): re-check them at cloud.google.com/run/pricing and
# cloud.google.com/dataflow/pricing before quoting.
PRICES = {
    "as_of": "2025-06 (list prices, us-central1 / Tier 1; re-check before quoting)",
    "run_vcpu_second_request_based": 0.000024,
    "run_gib_second_request_based": 0.0000025,
    "run_requests_per_million": 0.40,
    "run_vcpu_second_instance_based": 0.000018,
    "run_gib_second_instance_based": 0.000002,
    "dataflow_streaming_vcpu_hour": 0.069,
    "dataflow_streaming_gb_hour": 0.003557,
    "dataflow_pd_gb_hour": 0.000054,
    "dataflow_streaming_engine_compute_unit_hour": 0.089,
    "hours_per_month": 730,
}


def cost_model(push):
    """CPU-seconds per million messages measured here, turned into Cloud Run cost, next to the
    cheapest always-on Dataflow streaming job. Every price and every assumption is in the output."""
    ours = {r["concurrency"]: r for r in push["rows"] if r["target"] == "ours"}
    r = ours.get(256) or ours[max(ours)]
    # microseconds per message are seconds per million (each the median of its rounds)
    cpu_per_million = r["service_cpu_us_per_msg"]
    ch_cpu_per_million = r["clickhouse_cpu_us_per_msg"]
    p = PRICES
    # Cloud Run defaults (terraform/variables.tf): 1 vCPU, 512 MiB, concurrency 250.
    # Assumption: instances run at 60% CPU (Cloud Run's scaling target), so an instance is
    # billable for cpu / 0.6 seconds per message; with request-based billing (cpu_idle = true, the
    # default) it is billed only while it has requests, plus $0.40 per million requests; with
    # instance-based billing (cpu_idle = false) there is no request fee but an instance is billed
    # for its whole life (at least one while messages flow).
    utilisation = 0.6
    billable_s = cpu_per_million / utilisation
    second_request = 1 * p["run_vcpu_second_request_based"] + 0.5 * p["run_gib_second_request_based"]
    second_instance = (1 * p["run_vcpu_second_instance_based"]
                       + 0.5 * p["run_gib_second_instance_based"])
    # per million when CPU, not the 100 ms rounding, decides the billable time (high volume)
    request_based_per_million = billable_s * second_request + p["run_requests_per_million"]
    instance_msgs_per_s = 1e6 / billable_s  # one instance's sustainable rate at 60% CPU
    # The cheapest always-on Dataflow streaming job: one n1-standard-1 worker (1 vCPU, 3.75 GB)
    # with Streaming Engine and a 30 GB persistent disk, plus Streaming Engine data processed
    # (legacy per-GB billing, $0.018/GB; newer jobs bill compute units). Assumption: one such
    # worker carries 5,000 seed-row messages/s (not measured here).
    dataflow_worker_hour = (p["dataflow_streaming_vcpu_hour"]
                            + 3.75 * p["dataflow_streaming_gb_hour"]
                            + 30 * p["dataflow_pd_gb_hour"])
    message_gb = 300 / 1e9  # a push-sized message with metadata, about 300 bytes
    hours = p["hours_per_month"]
    volumes = {}
    month_s = hours * 3600
    cpu_s_per_msg = cpu_per_million / 1e6
    for rate in [1, 10, 100, 1000, 10000]:
        millions = rate * month_s / 1e6
        # Request-based: an instance is billable while it has a request, each busy period rounded
        # up to 100 ms; a push takes 5-30 ms here, so below 10 msg/s about 100 ms per message, from
        # 10 msg/s on the instance is billable all the time; more instances once CPU needs them.
        busy_instances = max(min(1.0, rate * 0.1), rate * cpu_s_per_msg / utilisation)
        run_request = (busy_instances * month_s * second_request
                       + millions * p["run_requests_per_million"])
        # Instance-based: whole instances, at least one while messages flow.
        instances = max(1, -(-rate * cpu_s_per_msg // utilisation))
        run_instance = instances * month_s * second_instance
        workers = max(1, -(-rate // 5000))
        dataflow = workers * dataflow_worker_hour * hours + millions * 1e6 * message_gb * 0.018
        volumes[str(rate)] = {
            "messages_per_month_millions": round(millions, 2),
            "cloud_run_request_based_usd_month": round(run_request, 2),
            "cloud_run_request_based_busy_instances": round(busy_instances, 3),
            "cloud_run_instance_based_usd_month": round(run_instance, 2),
            "cloud_run_instances": int(instances),
            "dataflow_usd_month": round(dataflow, 2),
            "dataflow_workers": workers,
        }
    by_concurrency = {}
    for c in (1, 16, 256):
        if c in ours:
            by_concurrency[str(c)] = at_measured_rate(ours[c], second_request,
                                                      dataflow_worker_hour, message_gb)
    return {
        "by_concurrency": by_concurrency,
        "measured_at_concurrency": r["concurrency"],
        "service_cpu_s_per_million": cpu_per_million,
        "clickhouse_cpu_s_per_million": ch_cpu_per_million,
        "utilisation_assumed": utilisation,
        "cloud_run_billable_instance_s_per_million": billable_s,
        "cloud_run_request_based_usd_per_million_when_busy": request_based_per_million,
        "cloud_run_request_based_usd_per_million_without_request_fee":
            request_based_per_million - p["run_requests_per_million"],
        "cloud_run_instance_msgs_per_s_at_60pct": instance_msgs_per_s,
        "cloud_run_instance_based_usd_month_per_instance": hours * 3600 * second_instance,
        "dataflow_cheapest_usd_month": dataflow_worker_hour * hours,
        "dataflow_worker_msgs_per_s_assumed": 5000,
        "message_bytes_assumed": 300,
        "by_volume_msgs_per_s": volumes,
        "prices": p,
    }


def at_measured_rate(row, second_request, dataflow_worker_hour, message_gb):
    """Cost per million messages at the rate ours sustained at one concurrency, from the CPU per
    message measured there. Cloud Run, request-based billing (the default), 1 vCPU and 512 MiB,
    concurrency 250: with requests always in flight one instance is billable all the time, and
    more once CPU at the 60% scaling target needs them. Dataflow at the same rate: whole workers of
    the cheapest streaming job (5,000 messages/s each, assumed), plus Streaming Engine data."""
    p = PRICES
    rate = max(row["msgs_per_s"], 1e-9)
    cpu_s_per_msg = row["service_cpu_us_per_msg"] / 1e6
    instances = max(1.0, rate * cpu_s_per_msg / 0.6)
    run = instances * second_request * 1e6 / rate + p["run_requests_per_million"]
    workers = max(1, -(-rate // 5000))
    dataflow = workers * dataflow_worker_hour / 3600 * 1e6 / rate + 1e6 * message_gb * 0.018
    return {"msgs_per_s": rate, "service_cpu_us_per_msg": row["service_cpu_us_per_msg"],
            "cloud_run_instances": round(instances, 3),
            "cloud_run_usd_per_million": run, "dataflow_workers": int(workers),
            "dataflow_usd_per_million": dataflow}


# ---------------------------------------------------------------------------------------------
