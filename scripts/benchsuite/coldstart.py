"""Part coldstart: process start to the first 204."""

import os
import signal
import statistics
import time

from .processes import Server, jar, service_env, wait_for_204, wrk
from .settings import COLD_START_PORT, JDK25, SERVICE_JVM, TRAINING_PORT, WORK, log


def run_cold_start(args):
    log("cold start: process start to the first 204")
    repeats = 2 if args.quick else 3
    cds = os.path.join(WORK, "function-appcds.jsa")
    aot = os.path.join(WORK, "function.aot")
    results = {}

    def train(java, jvm):
        """Runs the service under a training workload and stops it (SIGTERM) to write the archive."""
        server = Server("train", [java] + jvm + ["-jar", jar("function/target/function.jar")],
                        service_env(table="coldstart", port=TRAINING_PORT), TRAINING_PORT,
                        os.path.join(WORK, "train.log")).start()
        wait_for_204(TRAINING_PORT, server.process)
        wrk(TRAINING_PORT, 16, 3)
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(60)
        server.log.close()

    for path in [cds, aot]:
        if os.path.exists(path):
            os.remove(path)
    train("java", SERVICE_JVM + ["-XX:ArchiveClassesAtExit=" + cds])
    have25 = os.path.exists(JDK25)
    if have25:
        train(JDK25, SERVICE_JVM + ["-XX:AOTCacheOutput=" + aot])
    variants = [("bare handler, JDK 17", "java", None, "bare")]
    if have25:
        variants += [
            ("ours, JDK 25 (image)", JDK25, SERVICE_JVM, "ours"),
            ("ours, JDK 25 + AOT cache (JEP 483/514)", JDK25, SERVICE_JVM + ["-XX:AOTCache=" + aot],
             "ours"),
        ]
    variants += [
        ("ours, JDK 17", "java", SERVICE_JVM, "ours"),
        ("ours, JDK 17 + AppCDS", "java", SERVICE_JVM + ["-XX:SharedArchiveFile=" + cds], "ours"),
        ("ours, JDK 17 + AppCDS + C1 only", "java",
         SERVICE_JVM + ["-XX:SharedArchiveFile=" + cds, "-XX:TieredStopAtLevel=1"], "ours"),
    ]
    for cpus in (["0-1", "1"] if not args.quick else ["0-1"]):
        for label, java, jvm, kind in variants:
            if cpus == "1" and "C1" in label:
                continue
            times = []
            for i in range(repeats):
                port = COLD_START_PORT
                if kind == "ours":
                    command = [java] + jvm + ["-jar", jar("function/target/function.jar")]
                    env = service_env(table="coldstart", port=port)
                else:
                    command = [java] + SERVICE_JVM + [
                        "-cp", jar("benchmarks/target/benchmarks.jar"),
                        "dev.pubsubclickhouse.benchmarks.BareHandler", str(port)]
                    env = dict(os.environ)
                command = ["taskset", "-c", cpus] + command
                server = Server("cold", command, env, port, os.path.join(WORK, "cold.log"))
                start = time.monotonic()
                server.start()
                try:
                    wait_for_204(port, server.process, interval=0.002)
                    times.append(time.monotonic() - start)
                finally:
                    server.stop()
                time.sleep(0.5)
            key = "%s [%s CPU]" % (label, "2" if cpus == "0-1" else "1")
            results[key] = {"median_s": statistics.median(times), "runs_s": times,
                            "cpus": 2 if cpus == "0-1" else 1}
            log("  %-55s %.2f s (%s)" % (key, statistics.median(times),
                                          ", ".join("%.2f" % t for t in times)))
    return {
        "variants": results,
        "appcds_archive_mib": os.path.getsize(cds) / 2**20 if os.path.exists(cds) else None,
        "aot_cache_mib": os.path.getsize(aot) / 2**20 if os.path.exists(aot) else None,
    }
