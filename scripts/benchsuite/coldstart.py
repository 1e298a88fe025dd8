"""Part coldstart: process start to the first 204.

The function image's own start command is measured on this machine's Temurin 25: the pom's
jvmFlags and Jib's class path (function/target/function-*.jar under classpath/, the runtime
dependencies under libs/, in Jib's order, every file dated 1970-01-01T00:00:01 as Jib dates it),
without and with the AOT cache scripts/aot-cache trains, as cloudbuild.yaml trains the image's;
the cache's staleness check runs on it too.
"""

import glob
import os
import re
import shutil
import signal
import statistics
import subprocess
import time

from . import aotcache
from .processes import Server, service_env, wait_for_204, wrk
from .settings import (BENCHMARKS_JAR, CH_URL, COLD_START_PORT, FUNCTION_JAR, JDK25, REPO,
                       SERVICE_JVM, TRAINING_PORT, WORK, log)

# What Cloud Run's default container gives the image's JVM: it sizes itself for 512 MiB, and
# picks the serial collector (under 2 CPUs or 1792 MiB). The pom's -XX:MaxRAMPercentage=50 then
# makes a 256 MiB heap.
CONTAINER_JVM = ["-XX:MaxRAM=512m", "-XX:+UseSerialGC"]
# Jib's fixed file time (seconds since the epoch).
JIB_FILE_TIME = 1


def image_command(java):
    """The image's entrypoint as Jib writes it (java FLAGS -cp @CLASSPATH_FILE MAIN), over a
    copy of its /app laid out in WORK/image/app; returns (command, classpath file)."""
    with open(os.path.join(REPO, "function", "pom.xml")) as f:
        pom = f.read()
    jib = pom[pom.index("<artifactId>jib-maven-plugin</artifactId>"):]
    flags = re.findall(r"<jvmFlag>([^<]+)</jvmFlag>", jib)
    main = re.search(r"<mainClass>([^<]+)</mainClass>", jib).group(1)
    app = os.path.join(WORK, "image", "app")
    shutil.rmtree(app, ignore_errors=True)
    os.makedirs(os.path.join(app, "classpath"))
    os.makedirs(os.path.join(app, "libs"))
    own = [p for p in glob.glob(os.path.join(REPO, "function", "target", "function-*.jar"))]
    if len(own) != 1:
        raise RuntimeError("expected one function/target/function-*.jar, found %s" % own)
    shutil.copy(own[0], os.path.join(app, "classpath"))
    # Written by the build (build.py: dependency:build-classpath), in the order Jib uses.
    listing = os.path.join(REPO, "function", "target", "runtime-classpath.txt")
    if not os.path.exists(listing):
        raise RuntimeError("%s is missing: run the bench once without --skip-build" % listing)
    with open(listing) as f:
        dependencies = f.read().strip().split(os.pathsep)
    libs = [os.path.join(app, "libs", os.path.basename(d)) for d in dependencies]
    if len(set(libs)) != len(libs):
        raise RuntimeError("two dependencies share a file name; Jib would rename one")
    for source, target in zip(dependencies, libs):
        shutil.copy(source, target)
    classpath_file = os.path.join(app, "jib-classpath-file")
    with open(classpath_file, "w") as f:
        f.write(":".join([os.path.join(app, "classpath", "*")] + libs))
    for root, dirs, files in os.walk(app):
        for name in dirs + files:
            os.utime(os.path.join(root, name), (JIB_FILE_TIME, JIB_FILE_TIME))
    return [java] + CONTAINER_JVM + flags + ["-cp", "@" + classpath_file, main], classpath_file


def inputs(command, classpath_file):
    """scripts/aot-cache-inputs's list for the image command, on this machine's JDK."""
    java_home = os.path.dirname(os.path.dirname(command[0]))
    return subprocess.run(
        [os.path.join(REPO, "scripts", "aot-cache-inputs"), java_home, classpath_file]
        + aotcache.entrypoint_flags(command),
        check=True, capture_output=True, text=True).stdout.splitlines()


def image_cache(aot):
    """Lays out the image's command, trains its cache with scripts/aot-cache and checks it;
    returns (command, command with the cache, the check's result)."""
    command, classpath_file = image_command(JDK25)
    trained_inputs = inputs(command, classpath_file)
    url = "http://127.0.0.1:%d/" % TRAINING_PORT
    aotcache.train(command, url, aot, CH_URL, os.path.join(WORK, "train-aot.log"),
                   env=service_env(port=TRAINING_PORT))
    cached = aotcache.entrypoint_with_cache(command, aot)
    passed, why = aotcache.check(cached, url, CH_URL, os.path.join(WORK, "check-aot.log"),
                                 trained_inputs=trained_inputs,
                                 inputs=inputs(cached, classpath_file),
                                 env=service_env(port=TRAINING_PORT))
    log("  AOT cache check: %s: %s" % ("fresh" if passed else "STALE", why.split("\n")[0]))
    return command, cached, {"passed": passed, "why": why}


def run_cold_start(args):
    log("cold start: process start to the first 204")
    repeats = 2 if args.quick else 3
    cds = os.path.join(WORK, "function-appcds.jsa")
    aot = os.path.join(WORK, "function.aot")
    results = {}

    def train(java, jvm):
        """Runs the service under a training workload and stops it (SIGTERM) to write the archive."""
        server = Server("train", [java] + jvm + ["-jar", FUNCTION_JAR],
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
    # (label, java, JVM flags, kind); for kind "image" the flags are the whole command.
    variants = [("bare handler, JDK 17", "java", None, "bare")]
    aot_check = None
    if os.path.exists(JDK25):
        plain, cached, aot_check = image_cache(aot)
        variants += [
            ("the image's command, JDK 25, no cache", None, plain, "image"),
            ("the image's command + its AOT cache (shipped)", None, cached, "image"),
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
                    command = [java] + jvm + ["-jar", FUNCTION_JAR]
                    env = service_env(table="coldstart", port=port)
                elif kind == "image":
                    command = list(jvm)
                    env = service_env(table="coldstart", port=port)
                else:
                    command = [java] + SERVICE_JVM + [
                        "-cp", BENCHMARKS_JAR,
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
        "aot_cache_check": aot_check,
    }
