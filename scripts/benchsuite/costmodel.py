"""The cost model: measured CPU per message turned into Cloud Run and Dataflow bills, and beside
Cloud Run the two places the arm64 half of the image runs: GKE Autopilot Arm pods and a C4A VM.

  python3 -m benchsuite.costmodel RESULTS.json    (PYTHONPATH=scripts) the Arm comparison table
"""

import json
import sys

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

# Price inputs of the Arm comparison, us-central1, each with where it was read and when. A price
# that could not be read from a published page here is None: the comparison then gives the
# resources (pods, VMs, vCPU-hours) and no bill for that column; fill it from the page named.
ARM_PRICES = {
    # cloud.google.com/kubernetes-engine/pricing (stored copy read 2026-12-05): $0.10 per cluster
    # and hour for every mode, and a $74.40 monthly credit per billing account that covers one
    # Autopilot or zonal cluster.
    "gke_cluster_fee_hour": 0.10,
    "gke_free_tier_credit_month": 74.40,
    # Autopilot Pods on Arm nodes (kubernetes.io/arch: arm64, C4A): per vCPU-hour and GiB-hour
    # of the Pod's requests. Not found on a page readable here (2026-12-05): see
    # cloud.google.com/kubernetes-engine/pricing, "Autopilot mode".
    "gke_autopilot_arm_vcpu_hour": None,
    "gke_autopilot_arm_gib_hour": None,
    # C4A (Axion) on-demand per vCPU-hour and GiB-hour. Not found on a page readable here
    # (2026-12-05): see cloud.google.com/compute/vm-instance-pricing, "C4A machine types".
    "c4a_vcpu_hour": None,
    "c4a_gib_hour": None,
    "sources_read": "2026-12-05",
}

# The shapes compared: the Cloud Run module's default instance (1 vCPU, 512 MiB), the GKE module's
# default pod (1 vCPU, 2 GiB; Autopilot bills the requests), and the smallest C4A VM
# (c4a-standard-1: 1 vCPU, 4 GiB). Every one runs at 60% CPU, Cloud Run's scaling target.
ARM_SHAPES = {
    "gke_pod_vcpu": 1.0,
    "gke_pod_gib": 2.0,
    "c4a_vm_vcpu": 1.0,
    "c4a_vm_gib": 4.0,
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


def arm_comparison(cost, prices=None):
    """For the CPU per message the push measurement gave (cost_model's output): per rate, the
    Cloud Run instance-based bill beside GKE Autopilot Arm pods and C4A VMs, each shape run at the
    same 60% CPU; the CPU per message is taken to be the same on Axion (not measured there).
    Bills are None where a price is missing; the resources are always given."""
    p = dict(ARM_PRICES if prices is None else prices)
    s = ARM_SHAPES
    hours = PRICES["hours_per_month"]
    cpu_s_per_msg = cost["service_cpu_s_per_million"] / 1e6
    utilisation = cost["utilisation_assumed"]

    def bill(units, vcpu, gib, vcpu_price, gib_price):
        if vcpu_price is None or gib_price is None:
            return None
        return round(units * (vcpu * vcpu_price + gib * gib_price) * hours, 2)

    rows = {}
    for rate, v in cost["by_volume_msgs_per_s"].items():
        busy_vcpu = float(rate) * cpu_s_per_msg / utilisation
        pods = max(1, -(-busy_vcpu // s["gke_pod_vcpu"]))
        vms = max(1, -(-busy_vcpu // s["c4a_vm_vcpu"]))
        pods_bill = bill(pods, s["gke_pod_vcpu"], s["gke_pod_gib"],
                         p["gke_autopilot_arm_vcpu_hour"], p["gke_autopilot_arm_gib_hour"])
        rows[rate] = {
            "busy_vcpu": round(busy_vcpu, 4),
            "cloud_run_instances": v["cloud_run_instances"],
            "cloud_run_instance_based_usd_month": v["cloud_run_instance_based_usd_month"],
            "gke_arm_pods": int(pods),
            "gke_arm_pods_usd_month": pods_bill,
            "gke_cluster_fee_usd_month": round(p["gke_cluster_fee_hour"] * hours, 2),
            "c4a_vms": int(vms),
            "c4a_vms_usd_month": bill(vms, s["c4a_vm_vcpu"], s["c4a_vm_gib"], p["c4a_vcpu_hour"],
                                      p["c4a_gib_hour"]),
        }
    return {"by_volume_msgs_per_s": rows, "prices": p, "shapes": s}


def arm_comparison_markdown(arm):
    """The table docs/performance.md shows; n/a where a price is not recorded."""
    def usd(value):
        return "n/a" if value is None else "$%s" % format(value, ",.2f")
    lines = ["| msg/s | vCPU busy at 60% | Cloud Run, instance-based | GKE Autopilot Arm pods"
             " (1 vCPU, 2 GiB) | C4A VMs (c4a-standard-1) |",
             "|---:|---:|---:|---:|---:|"]
    for rate, v in arm["by_volume_msgs_per_s"].items():
        lines.append("| %s | %.3f | %s (%d) | %s (%d) | %s (%d) |" % (
            format(int(rate), ","), v["busy_vcpu"], usd(v["cloud_run_instance_based_usd_month"]),
            v["cloud_run_instances"], usd(v["gke_arm_pods_usd_month"]), v["gke_arm_pods"],
            usd(v["c4a_vms_usd_month"]), v["c4a_vms"]))
    return "\n".join(lines) + "\n"


def main(argv):
    """python3 -m benchsuite.costmodel RESULTS.json: the Arm comparison of a run, as markdown."""
    if len(argv) != 1:
        sys.exit("usage: python3 -m benchsuite.costmodel docs/perf/runs/DATE/results-DATE.json")
    with open(argv[0], encoding="utf-8") as f:
        results = json.load(f)
    sys.stdout.write(arm_comparison_markdown(arm_comparison(cost_model(results["push"]))))


if __name__ == "__main__":
    main(sys.argv[1:])
