#!/usr/bin/env python3
"""Sums an async-profiler collapsed-stack file (scripts/bench-profile PID S cpu out.collapsed) by
what the push service is doing: the share of samples per category, and the share whose leaf frame
is in the kernel. Usage: scripts/bench-profile-summary.py FILE.collapsed"""
import collections
import sys

# First match wins; order matters (a request thread's stack also holds Jetty's frames).
RULES = [
    ("PushRequestParser", "request: envelope parse (Jackson, base64)"),
    ("MessageEncoder", "request: payload JSON -> RowBinary"),
    ("GroupCommitBatcher.offer", "request: batcher offer"),
    ("BatchWriter.answer", "flusher: complete the futures (unpark)"),
    ("CompletableFuture", "request: wait for the batch (park / unpark)"),
    ("PushFunction.lowerCaseHeaders", "request: header map copy"),
    ("PushFunction.respond", "request: write the answer"),
    ("PushFunction", "request: other PushFunction"),
    ("ClickHouseInserter", "flusher: INSERT (client-v2, HTTP, LZ4)"),
    ("BatchWriter", "flusher: assemble the batch"),
    ("GroupCommitBatcher", "flusher: wait / signal"),
    ("ReservedThreadExecutor", "jetty: reserved-thread hand-off"),
    ("ManagedSelector", "jetty: selector"),
    ("HttpConnection", "jetty: HTTP parse / write"),
    ("BlockingArrayQueue", "jetty: idle pool threads parked / woken for the next job"),
    ("QueuedThreadPool", "jetty: thread pool, other"),
    ("ForkJoinPool", "virtual-thread scheduler"),
    ("VirtualThread", "virtual-thread scheduler"),
]


def main(path):
    total = kernel = 0
    by = collections.Counter()
    for line in open(path):
        stack, _, count = line.rstrip().rpartition(" ")
        n = int(count)
        total += n
        if stack.split(";")[-1].endswith("_[k]"):
            kernel += n
        label = next((l for pattern, l in RULES if pattern in stack), None)
        if label is None:
            first = stack.split(";")[0]
            label = "GC / JIT / VM" if any(
                k in first for k in ("GC", "Compiler", "VM", "Thread::")) else "other"
        by[label] += n
    print("%d samples; %.1f%% with a kernel leaf frame" % (total, 100 * kernel / max(total, 1)))
    for label, n in by.most_common():
        print("%6.1f%%  %s" % (100 * n / total, label))


if __name__ == "__main__":
    main(sys.argv[1])
