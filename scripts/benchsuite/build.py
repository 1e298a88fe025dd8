"""Builds the jars the suite runs."""

import os
import shutil
import subprocess

from .settings import REPO, WORK, log


def build(args):
    if args.skip_build:
        return
    log("building core, function, benchmarks, benchmarks-beam, backfill-job")
    # Each module's runtime class path in target/runtime-classpath.txt, in the order Jib lays it
    # out: the coldstart part rebuilds the function image's class path from it.
    subprocess.run(
        ["mvn", "-q", "-B", "-DskipTests", "-P", "bench-beam", "package",
         "dependency:build-classpath", "-DincludeScope=runtime",
         "-Dmdep.outputFile=target/runtime-classpath.txt",
         "-pl", "core,function,benchmarks,benchmarks-beam,backfill-job", "-am"],
        cwd=REPO, check=True,
    )


def build_patched(patches):
    """Builds function.jar from HEAD plus the patches in a scratch copy; returns its path."""
    tree = os.path.join(WORK, "patched-tree")
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
    for patch in patches:
        subprocess.run(["git", "apply", os.path.abspath(patch)], cwd=tree, check=True)
    log("building the patched function.jar (%s)" % ", ".join(patches))
    subprocess.run(["mvn", "-q", "-B", "-DskipTests", "-Dspotless.check.skip=true", "package",
                    "-pl", "function", "-am"], cwd=tree, check=True)
    return os.path.join(tree, "function", "target", "function.jar")
