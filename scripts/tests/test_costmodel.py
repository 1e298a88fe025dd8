"""The Arm comparison of the cost model: the same CPU per message priced as Cloud Run instances,
GKE Autopilot Arm pods and C4A VMs, with exact bills from given prices and none from missing
ones."""

import unittest

from benchsuite.costmodel import (ARM_PRICES, arm_comparison, arm_comparison_markdown,
                                  cost_model)


def push_run(service_cpu_s, msgs_per_s=10000, seconds=100):
    """A push measurement of one point at c=256: msgs_per_s for seconds, service_cpu_s in all."""
    messages = msgs_per_s * seconds
    return {"rows": [{"target": "ours", "concurrency": 256, "msgs_per_s": msgs_per_s,
                      "seconds": seconds, "service_cpu_s": service_cpu_s,
                      "clickhouse_cpu_s": 1.0,
                      "service_cpu_us_per_msg": service_cpu_s * 1e6 / messages,
                      "clickhouse_cpu_us_per_msg": 1.0 * 1e6 / messages}]}


PRICED = dict(ARM_PRICES, gke_autopilot_arm_vcpu_hour=0.03, gke_autopilot_arm_gib_hour=0.004,
              c4a_vcpu_hour=0.02, c4a_gib_hour=0.003)


class ArmComparisonTest(unittest.TestCase):
    def test_one_pod_and_one_vm_carry_a_light_load_at_the_price_of_their_shape(self):
        # 57.4 CPU-s per million messages: 10,000 msg/s keep 0.957 vCPU busy at 60%.
        arm = arm_comparison(cost_model(push_run(57.4)), PRICED)
        row = arm["by_volume_msgs_per_s"]["10000"]
        self.assertEqual(row["busy_vcpu"], 0.9567)
        self.assertEqual((row["gke_arm_pods"], row["c4a_vms"]), (1, 1))
        self.assertEqual(row["gke_arm_pods_usd_month"], 27.74)   # (0.03 + 2 x 0.004) x 730
        self.assertEqual(row["c4a_vms_usd_month"], 23.36)        # (0.02 + 4 x 0.003) x 730
        self.assertEqual(row["gke_cluster_fee_usd_month"], 73.0)
        self.assertEqual(row["cloud_run_instance_based_usd_month"], 49.93)

    def test_more_cpu_per_message_takes_more_pods_and_vms_rounded_up(self):
        # 600 CPU-s per million: 10,000 msg/s keep 10 vCPU busy at 60%; 1,000 msg/s 1.
        arm = arm_comparison(cost_model(push_run(600.0)), PRICED)
        rows = arm["by_volume_msgs_per_s"]
        self.assertEqual((rows["10000"]["gke_arm_pods"], rows["10000"]["c4a_vms"]), (10, 10))
        self.assertEqual(rows["10000"]["gke_arm_pods_usd_month"], 277.4)
        self.assertEqual(rows["1000"]["busy_vcpu"], 1.0)
        self.assertEqual((rows["1000"]["gke_arm_pods"], rows["1000"]["cloud_run_instances"]),
                         (1, 1))
        self.assertEqual(rows["100"]["gke_arm_pods"], 1)  # never fewer than one

    def test_a_missing_price_gives_resources_and_no_bill(self):
        arm = arm_comparison(cost_model(push_run(57.4)), dict(PRICED, c4a_gib_hour=None))
        row = arm["by_volume_msgs_per_s"]["10000"]
        self.assertIsNone(row["c4a_vms_usd_month"])
        self.assertEqual(row["c4a_vms"], 1)
        self.assertEqual(row["gke_arm_pods_usd_month"], 27.74)
        table = arm_comparison_markdown(arm)
        self.assertIn("| 10,000 | 0.957 | $49.93 (1) | $27.74 (1) | n/a (1) |", table)

    def test_the_recorded_prices_say_where_and_when_they_were_read(self):
        self.assertEqual(ARM_PRICES["gke_cluster_fee_hour"], 0.10)
        self.assertEqual(ARM_PRICES["gke_free_tier_credit_month"], 74.40)
        self.assertRegex(ARM_PRICES["sources_read"], r"^\d{4}-\d{2}-\d{2}$")


if __name__ == "__main__":
    unittest.main()
