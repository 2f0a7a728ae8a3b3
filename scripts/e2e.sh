#!/usr/bin/env bash
# The end-to-end suite against a real Kubernetes control plane (test/e2e/). It builds the control
# plane if it is not cached (test/cluster/build-k8s.sh), then runs the tests in namespaces of their
# own: a network namespace with loopback up and the Service CIDR routed to it (so the API server's
# calls to a webhook Service's ClusterIP reach the webhook process), and a PID namespace, so that
# when the run ends — passed, failed, interrupted or killed — the kernel ends every etcd, API server
# and webhook it started. probe-lint's own image (for the chart running as Pods) is built before, with
# the network (test/cluster/build-image.sh: the Dockerfile's `npm ci`).
#   npm run test:e2e                      # all of it
#   npm run test:e2e -- dist/test/e2e/webhook.test.js
#   npm run bench:scale                   # dist/bench/admission-scale.js, the chart's Pods under a rollout storm
set -euo pipefail
cd "$(dirname "$0")/.."

test/cluster/build-k8s.sh >/dev/null
# The report CRDs come from Go modules: fetched into the module cache now, while the network is there.
test/cluster/report-crds.sh >/dev/null
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(dist/test/e2e/*.test.js)
if [[ " ${files[*]} " == *chart-pods.test.js* || " ${files[*]} " == *admission-scale.js* ]]; then
  # Without buildah or busybox the suite says why (and fails in CI); the image is then not built.
  if PROBE_LINT_E2E_IMAGE="$(test/cluster/build-image.sh)"; then export PROBE_LINT_E2E_IMAGE; fi
fi

namespaces=(--net --pid --fork --kill-child --mount-proc)
# Without root, a user namespace maps this user to root inside (needs unprivileged user namespaces).
[ "$(id -u)" -eq 0 ] || namespaces=(--user --map-root-user "${namespaces[@]}")

status=0
unshare "${namespaces[@]}" -- bash -c '
  set -e
  ip link set lo up
  ip route add local 10.96.0.0/16 dev lo
  exec node --test --test-concurrency=1 --test-reporter=spec "$@"
' e2e "${files[@]}" || status=$?

# Nothing may outlive the run (the PID namespace guarantees it; this says so if it ever did not).
if pgrep -f 'probe-lint-e2e-' >/dev/null; then
  echo "e2e: processes of the run are still alive:" >&2
  pgrep -af 'probe-lint-e2e-' >&2
  exit 1
fi
exit $status
