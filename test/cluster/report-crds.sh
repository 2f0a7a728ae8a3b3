#!/usr/bin/env bash
# The CustomResourceDefinitions of the report formats, as their projects publish them in their Go
# modules, fetched through the Go module proxy (checked against the checksum database) into the
# module cache. Prints one CRD file per line:
#   openreports.io   Report, ClusterReport             github.com/openreports/reports-api
#   wgpolicyk8s.io   PolicyReport, ClusterPolicyReport  github.com/kyverno/kyverno (config/crds/policyreport)
set -euo pipefail
openreports=github.com/openreports/reports-api@v0.2.1
kyverno=github.com/kyverno/kyverno@v1.19.1
if ! command -v go >/dev/null 2>&1; then
  echo "report-crds: Go is not installed; the report CRDs come from Go modules" >&2
  exit 1
fi
dir() { (cd / && GOFLAGS=-mod=mod go mod download -json "$1") | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'; }
o="$(dir "$openreports")"
k="$(dir "$kyverno")"
echo "$o/config/crd/openreports.io_reports.yaml"
echo "$o/config/crd/openreports.io_clusterreports.yaml"
echo "$k/config/crds/policyreport/wgpolicyk8s.io_policyreports.yaml"
echo "$k/config/crds/policyreport/wgpolicyk8s.io_clusterpolicyreports.yaml"
