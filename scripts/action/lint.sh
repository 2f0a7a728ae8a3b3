#!/usr/bin/env bash
# The action's lint step: one run of probe-lint gives the annotations (stdout, --format github),
# the SARIF file, the job summary and the counts. Inputs come from the environment and are passed
# as arguments, quoted; the path after `--`, so that no value becomes an option or shell text.
set -euo pipefail
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
args=(--format github --fail-on "$PROBE_LINT_FAIL_ON" --report "sarif=$PROBE_LINT_SARIF" --report "markdown=$work/summary.md" --report "json=$work/report.json")
if [ -n "$PROBE_LINT_CONFIG" ]; then args+=(--config "$PROBE_LINT_CONFIG"); fi
if [ -n "${PROBE_LINT_HTML:-}" ]; then args+=(--report "html=$PROBE_LINT_HTML"); fi
# A pull request's own findings: those in the files it changes since its base (a shallow checkout
# fetches the base commit alone). The base comes from the event, checked to be a commit id.
case "${GITHUB_EVENT_NAME:-}" in
  pull_request | pull_request_target)
    if [ "${PROBE_LINT_CHANGED_ONLY:-auto}" != "false" ]; then
      base="$(node -e '
        const event = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
        const sha = event.pull_request?.base?.sha;
        if (typeof sha === "string" && /^[0-9a-f]{40,64}$/.test(sha)) process.stdout.write(sha);
      ' "$GITHUB_EVENT_PATH")"
      if [ -n "$base" ]; then
        git cat-file -e "$base^{commit}" 2> /dev/null || git fetch --quiet --no-tags --depth=1 origin "$base" || true
        args+=(--changed-since "$base")
      fi
    fi
    ;;
esac
status=0
node "$GITHUB_ACTION_PATH/dist/src/cli/bin.js" "${args[@]}" -- "$PROBE_LINT_PATH" || status=$?
# The summary and the outputs also when the step fails; a run that wrote no report (a usage error) has none.
if [ -f "$work/summary.md" ]; then node "$GITHUB_ACTION_PATH/dist/scripts/action/summary.js" "$work/summary.md" >> "$GITHUB_STEP_SUMMARY"; fi
if [ -f "$work/report.json" ]; then
  # A value with a line break would forge another output: the paths are written in the delimited form.
  node -e '
    const { randomBytes } = require("node:crypto");
    const { summary } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const delimiter = `probe-lint-${randomBytes(16).toString("hex")}`;
    process.stdout.write(`errors=${summary.errors}\nwarnings=${summary.warnings}\ninfos=${summary.infos}\n`);
    process.stdout.write(`sarif<<${delimiter}\n${process.env.PROBE_LINT_SARIF}\n${delimiter}\n`);
    if (process.env.PROBE_LINT_HTML) process.stdout.write(`html<<${delimiter}\n${process.env.PROBE_LINT_HTML}\n${delimiter}\n`);
  ' "$work/report.json" >> "$GITHUB_OUTPUT"
fi
exit "$status"
