#!/usr/bin/env bash
# Builds the real Kubernetes the end-to-end tests run — kube-apiserver, kube-controller-manager,
# kube-scheduler, etcd and the kubelet — from the Go module in test/cluster/k8s, once per version, and the node's
# images from test/cluster/images (once per change of their code), into a cache outside the
# repository. Prints the directory that holds them.
#   test/cluster/build-k8s.sh            # builds what is missing
# A cold build takes about 10 minutes on 2 cores and needs about 3 GB (module and build caches).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
module="$here/k8s"

if ! command -v go >/dev/null 2>&1; then
  echo "build-k8s: Go is not installed; the end-to-end tests build the Kubernetes control plane with Go 1.26 or later" >&2
  exit 1
fi
version="$(cd "$module" && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
etcd_version="$(cd "$module" && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)"
cache="${PROBE_LINT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/probe-lint}/k8s-$version-etcd-$etcd_version"
mkdir -p "$cache"

build() { # name, package
  local name="$1" package="$2"
  if [ -x "$cache/$name" ]; then
    echo "build-k8s: $name $version is built ($cache/$name)" >&2
    return
  fi
  echo "build-k8s: building $name ($package) — the first build downloads modules and compiles for several minutes" >&2
  local started=$SECONDS
  (cd "$module" && go build -v -trimpath -o "$cache/$name.partial" \
      -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=$(echo "$version" | cut -d. -f1 | tr -d v) -X k8s.io/component-base/version.gitMinor=$(echo "$version" | cut -d. -f2) -X k8s.io/component-base/version.gitTreeState=clean" \
      "$package" 2>&1) | awk -v name="$name" '{ count++ } count % 200 == 0 { printf "build-k8s: %s: %d packages compiled\n", name, count > "/dev/stderr" } /^#|error|cannot/ { print > "/dev/stderr" }'
  mv "$cache/$name.partial" "$cache/$name"
  echo "build-k8s: built $name in $((SECONDS - started)) s" >&2
}

build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
build kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
build kubelet k8s.io/kubernetes/cmd/kubelet
version="$etcd_version" build etcd ./etcd

# The node's images: static binaries from our own code, written as OCI layouts (test/cluster/images).
images_source="$here/images"
images_hash="$(cd "$images_source" && cat go.mod $(find . -name '*.go' | LC_ALL=C sort) | sha256sum | cut -c1-12)"
images="$cache/images-$images_hash"
if [ ! -f "$images/app.tar" ]; then
  echo "build-k8s: building the node's images ($images)" >&2
  rm -rf "$images.partial" && mkdir -p "$images.partial/bin"
  (cd "$images_source" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$images.partial/bin/" ./...)
  "$images.partial/bin/mkimage" -o "$images.partial/pause.tar" -name probe-lint.test/pause:1 -entrypoint /pause "pause=$images.partial/bin/pause"
  "$images.partial/bin/mkimage" -o "$images.partial/app.tar" -name probe-lint.test/app:1 -entrypoint /app "app=$images.partial/bin/app"
  rm -rf "$images" && mv "$images.partial" "$images"
fi
ln -sfn "images-$images_hash" "$cache/images"
echo "$cache"
