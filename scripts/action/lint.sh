#!/usr/bin/env bash
# The action's lint step: one run of probe-lint gives the annotations (stdout, --format github),
# the SARIF file, the job summary and the counts. Inputs come from the environment and are passed
# as arguments, quoted; the path after `--`, so that no value becomes an option or shell text.
set -euo pipefail
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
args=(--format github --fail-on "$PROBE_LINT_FAIL_ON" --report "sarif=$PROBE_LINT_SARIF" --report "markdown=$work/summary.md" --report "json=$work/report.json")
if [ -n "$PROBE_LINT_CONFIG" ]; then args+=(--config "$PROBE_LINT_CONFIG"); fi
status=0
node "$GITHUB_ACTION_PATH/dist/src/cli/bin.js" "${args[@]}" -- "$PROBE_LINT_PATH" || status=$?
# The summary and the outputs also when the step fails; a run that wrote no report (a usage error) has none.
if [ -f "$work/summary.md" ]; then node "$GITHUB_ACTION_PATH/dist/scripts/action/summary.js" "$work/summary.md" >> "$GITHUB_STEP_SUMMARY"; fi
if [ -f "$work/report.json" ]; then
  # A value with a line break would forge another output: the SARIF path is written in the delimited form.
  node -e '
    const { randomBytes } = require("node:crypto");
    const { summary } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const delimiter = `probe-lint-${randomBytes(16).toString("hex")}`;
    process.stdout.write(`errors=${summary.errors}\nwarnings=${summary.warnings}\ninfos=${summary.infos}\n`);
    process.stdout.write(`sarif<<${delimiter}\n${process.env.PROBE_LINT_SARIF}\n${delimiter}\n`);
  ' "$work/report.json" >> "$GITHUB_OUTPUT"
fi
exit "$status"
