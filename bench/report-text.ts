// The report's share of the lint's floor: a JSON report's text made from values that are already
// there and written out, and nothing else (no rules, no places, no fingerprints to work out). A lint
// asked for 27,000 findings in JSON cannot write less than this; the floors under the lint rows are
// the parse and the rules with this added.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Writes `report` as the JSON format writes it (two-space indent) to /dev/null; returns its length. */
export function writeReportText(report: unknown): number {
  const text = JSON.stringify(report, null, 2);
  const sink = openSync('/dev/null', 'w');
  try {
    writeSync(sink, text);
  } finally {
    closeSync(sink);
  }
  return text.length;
}

// As a process of its own (`node report-text.js REPORT.json`): prints the CPU milliseconds of writing
// the report's text once, in a process that has just started (as the lint's process writes it once),
// its reading and parsing of the file left out.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report: unknown = JSON.parse(readFileSync(process.argv[2]!, 'utf8'));
  const before = process.cpuUsage();
  writeReportText(report);
  const used = process.cpuUsage(before);
  process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000 })}\n`);
}
