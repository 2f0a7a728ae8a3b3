#!/usr/bin/env bash
# nektos/act, built from its Go module into the cache once (the CI integration tests run the
# GitHub Action with it, offline, in self-hosted mode: no Docker). Prints the binary's path.
set -euo pipefail
version=v0.2.89
directory="${XDG_CACHE_HOME:-$HOME/.cache}/probe-lint/act-$version"
if [ ! -x "$directory/act" ]; then
  command -v go >/dev/null 2>&1 || { echo "build-act: go is not installed (act is built from its Go module)" >&2; exit 1; }
  mkdir -p "$directory.partial"
  GOBIN="$directory.partial" GOFLAGS=-mod=mod go install "github.com/nektos/act@$version" >&2
  rm -rf "$directory" && mv "$directory.partial" "$directory"
fi
echo "$directory/act"
