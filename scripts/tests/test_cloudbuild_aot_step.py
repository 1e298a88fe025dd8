"""cloudbuild.yaml's aot-function step, run as bash against a stand-in docker (this machine has no
Docker engine): per architecture it trains on Jib's digest for that architecture, builds the thin
image FROM it with the cache and -XX:AOTCache, checks it and only then pushes it; the manifest
list of the two pushed digests gives function/target/image.digest. A failing check fails the step
before that architecture is pushed. What docker itself does is Cloud Build's to show."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIST_DIGEST = "sha256:" + "c" * 64

# Answers the queries the step makes and records every call; `docker run --entrypoint sh` runs
# the script it is given here, on a made-up JDK and class path.
FAKE_DOCKER = r'''#!/bin/bash
echo "docker $*" >> "$DRY/calls"
case "$1 $2" in
  "manifest inspect") echo '{"manifests": [
    {"digest": "sha256:arm", "platform": {"architecture": "arm64", "os": "linux"}},
    {"digest": "sha256:amd", "platform": {"architecture": "amd64", "os": "linux"}}]}' ;;
  "manifest push") echo "Pushed ref"; echo "LIST_DIGEST" ;;
esac
if [ "$1" = inspect ]; then
  image="${@: -1}"
  case "$3" in
    *Entrypoint*) if [ -f "$DRY/entrypoint.${image##*:}" ]; then cat "$DRY/entrypoint.${image##*:}"
      else echo '["java", "-XX:MaxRAMPercentage=50", "-cp", "@/app/jib-classpath-file", "M"]'; fi ;;
    *Env*) printf 'PATH=/usr/bin\nJAVA_HOME=%s\n\n' "$DRY/jdk" ;;
    *RepoDigests*) echo "${image%%:*}@sha256:pushed-${image##*-}" ;;
  esac
fi
if [ "$1" = build ]; then
  tag="$5"; dir="${@: -1}"
  cp "$dir/Dockerfile" "$DRY/Dockerfile.${tag##*-}"
  sed -n 's/^ENTRYPOINT //p' "$dir/Dockerfile" > "$DRY/entrypoint.${tag##*:}"
  cp "$dir/function.aot.inputs" "$DRY/carried.${tag##*-}"
fi
if [ "$1" = run ]; then
  args=("$@")
  for i in "${!args[@]}"; do
    if [ "${args[$i]}" = --entrypoint ]; then
      image="${args[$((i+2))]}"
      if [ "${args[$((i+1))]}" = sh ]; then
        rest=("${args[@]:$((i+3))}")
        sh -c "${rest[1]}" "${rest[2]}" "${rest[3]}" "$DRY/classpath" "${rest[@]:5}"
      else
        cat "$DRY/carried.${image##*-}"
      fi
    fi
  done
fi
'''.replace("LIST_DIGEST", LIST_DIGEST)

# scripts/aot-cache, with train and check recorded instead of run; check exits CHECK_EXIT.
FAKE_AOT_CACHE = r'''#!/bin/bash
case "$1" in
  train) echo "aot-cache $*" >> "$DRY/calls" ;;
  check) echo "aot-cache $*" >> "$DRY/calls"; exit "${CHECK_EXIT:-0}" ;;
  *) exec "$(dirname "$0")/aot-cache.real" "$@" ;;
esac
'''


def aot_step_script():
    """The step's bash as Cloud Build runs it: the block under `- |`, $$ unescaped, the
    substitutions filled in."""
    with open(os.path.join(REPO, "cloudbuild.yaml")) as f:
        text = f.read()
    step = text[text.index("  - id: aot-function\n"):]
    block = step[step.index("      - |\n") + len("      - |\n"):]
    lines = []
    for line in block.split("\n"):
        if line.strip() and not line.startswith("        "):
            break
        lines.append(line[8:])
    script = "\n".join(lines)
    for name, value in [("${_REGION}", "us"), ("${_REPOSITORY}", "repo"), ("${_TAG}", ""),
                        ("$PROJECT_ID", "proj"), ("$BUILD_ID", "b1")]:
        script = script.replace(name, value)
    return script.replace("$$", "$")


class AotStepTest(unittest.TestCase):
    def setUp(self):
        self.dry = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dry)
        self.repo = os.path.join(self.dry, "repo")
        os.makedirs(os.path.join(self.repo, "function", "target"))
        shutil.copytree(os.path.join(REPO, "scripts", "benchsuite"),
                        os.path.join(self.repo, "scripts", "benchsuite"))
        shutil.copy(os.path.join(REPO, "scripts", "aot-cache-inputs"),
                    os.path.join(self.repo, "scripts"))
        shutil.copy(os.path.join(REPO, "scripts", "aot-cache"),
                    os.path.join(self.repo, "scripts", "aot-cache.real"))
        bin_dir = os.path.join(self.dry, "bin")
        os.makedirs(bin_dir)
        for path, content in [(os.path.join(bin_dir, "docker"), FAKE_DOCKER),
                              (os.path.join(bin_dir, "gcloud"), "#!/bin/sh\n"),
                              (os.path.join(self.repo, "scripts", "aot-cache"), FAKE_AOT_CACHE)]:
            with open(path, "w") as f:
                f.write(content)
            os.chmod(path, 0o755)
        for path in ["jdk/release", "jdk/lib/modules", "jdk/lib/server/libjvm.so", "app/a.jar"]:
            os.makedirs(os.path.dirname(os.path.join(self.dry, path)), exist_ok=True)
            with open(os.path.join(self.dry, path), "w") as f:
                f.write(path)
        with open(os.path.join(self.dry, "classpath"), "w") as f:
            f.write(os.path.join(self.dry, "app", "a.jar"))
        with open(os.path.join(self.repo, "function", "target", "jib-image.digest"), "w") as f:
            f.write("sha256:jib\n")
        self.workspace = os.path.join(self.dry, "workspace")

    def run_step(self, check_exit=0):
        script = aot_step_script().replace("/workspace/", self.workspace + "/")
        env = dict(os.environ, DRY=self.dry, CHECK_EXIT=str(check_exit),
                   PATH=os.path.join(self.dry, "bin") + os.pathsep + os.environ["PATH"])
        result = subprocess.run(["bash", "-ceu", script], cwd=self.repo, env=env,
                                capture_output=True, text=True)
        with open(os.path.join(self.dry, "calls")) as f:
            return result, f.read().splitlines()

    def test_each_architecture_is_trained_built_checked_then_pushed_into_one_list(self):
        result, calls = self.run_step()
        self.assertEqual(result.returncode, 0, result.stderr)
        image = "us-docker.pkg.dev/proj/repo/pubsub-clickhouse-function"
        for arch, digest in [("amd64", "sha256:amd"), ("arm64", "sha256:arm")]:
            source = "%s@%s" % (image, digest)
            patterns = [
                ("train", r"aot-cache train .*-- docker run --platform linux/%s .*--name "
                          r"aot-train-%s %s" % (arch, arch, re.escape(source))),
                ("build", re.escape("docker build --platform linux/%s -t %s:b1-%s %s" % (
                    arch, image, arch, os.path.join(self.workspace, "aot", arch)))),
                ("check", r"aot-cache check .*--memory 512m --rm --name aot-check-%s %s:b1-%s"
                          % (arch, re.escape(image), arch)),
                ("push", re.escape("docker push %s:b1-%s" % (image, arch))),
            ]
            order = [kind for c in calls for kind, pattern in patterns
                     if re.fullmatch(pattern, c)]
            self.assertEqual(order, ["train", "build", "check", "push"], calls)
            with open(os.path.join(self.dry, "Dockerfile." + arch)) as f:
                dockerfile = f.read()
            self.assertIn("FROM %s\n" % source, dockerfile)
            self.assertIn('ENTRYPOINT ["java", "-XX:AOTCache=/app/function.aot", '
                          '"-XX:MaxRAMPercentage=50", "-cp"', dockerfile)
            # The check compares what the image carries with the same list taken from it.
            work = os.path.join(self.workspace, "aot", arch)
            with open(os.path.join(work, "carried.inputs")) as a, \
                    open(os.path.join(work, "checked.inputs")) as b:
                carried = a.read()
                self.assertEqual(carried, b.read())
            self.assertIn("flags -XX:MaxRAMPercentage=50\n", carried)
            self.assertIn(os.path.join(self.dry, "app", "a.jar"), carried)
        self.assertIn("docker manifest create %s:b1 %s@sha256:pushed-amd64 %s@sha256:pushed-arm64"
                      % (image, image, image), calls)
        with open(os.path.join(self.repo, "function", "target", "image.digest")) as f:
            self.assertEqual(f.read(), LIST_DIGEST + "\n")

    def test_a_failed_check_stops_the_build_before_anything_is_pushed(self):
        result, calls = self.run_step(check_exit=1)
        self.assertNotEqual(result.returncode, 0)
        self.assertTrue(any(c.startswith("aot-cache check") for c in calls))
        pushes = ("docker push", "docker manifest create", "docker manifest push")
        self.assertFalse([c for c in calls if c.startswith(pushes)])
        self.assertFalse(os.path.exists(
            os.path.join(self.repo, "function", "target", "image.digest")))


if __name__ == "__main__":
    unittest.main()
