"""What the suite ran on."""

import hashlib
import os
import platform
import subprocess

from .settings import BENCHMARKS_JAR, FUNCTION_JAR, JDK25, REPO


def machine_info():
    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = open("/proc/meminfo").readline().split()[1]

    def first_line(command):
        try:
            r = subprocess.run(command, capture_output=True, text=True)
            return (r.stdout + r.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return None

    java25 = None
    if os.path.exists(JDK25):
        java25 = first_line([JDK25, "-version"])
    return {
        "cpu": "%s, %d cores" % (cpu, os.cpu_count()),
        "memory_gib": round(int(mem) / 2**20, 1),
        "kernel": platform.release(),
        "java": first_line(["java", "-version"]),
        "java25": java25,
        "wrk": first_line(["wrk", "--version"]),
        "git_commit": git_commit(),
        # With --skip-build the jars measured may be older than the commit: their hashes tell
        # whether two runs measured the same build.
        "jar_sha256": {"function": jar_sha256(FUNCTION_JAR),
                       "benchmarks": jar_sha256(BENCHMARKS_JAR)},
    }


def git_commit(repo=REPO):
    """The checked-out commit, with "-dirty" when files outside docs/ differ from it or are new
    (a run from an uncommitted suite or service is not the commit's); None outside a git checkout
    (a source archive)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo,
                          capture_output=True, text=True)
    if head.returncode != 0:
        return None
    status = subprocess.run(["git", "status", "--porcelain", "--", ".", ":(exclude)docs"],
                            cwd=repo, capture_output=True, text=True)
    dirty = status.returncode != 0 or status.stdout.strip() != ""
    return head.stdout.strip() + ("-dirty" if dirty else "")


def jar_sha256(path):
    """The first 16 hex digits of the file's SHA-256, or None when it is missing."""
    if not os.path.exists(path):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]
