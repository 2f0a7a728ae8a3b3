// The action's job summary: the Markdown report as it is, or, past what GitHub takes for one step's
// summary (1 MiB; a larger one is dropped whole), cut at a line with a last line that says how much
// was left out and where all of it is. Usage: node dist/scripts/action/summary.js REPORT.md >> "$GITHUB_STEP_SUMMARY"
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** GitHub's limit for one step's summary, less room for the closing line. */
const LIMIT = 1024 * 1024 - 1024;

export function jobSummary(markdown: Buffer): Buffer {
  if (markdown.length <= LIMIT) return markdown;
  // Cut at a line break, which is never inside a UTF-8 sequence: the kept part is whole lines.
  const cut = markdown.lastIndexOf(0x0a, LIMIT - 1) + 1;
  const rest = markdown.subarray(cut).toString('utf8').split('\n');
  const rows = rest.filter((line) => line.startsWith('| ')).length;
  const note = `\n**Cut here:** ${rows} more table ${rows === 1 ? 'row' : 'rows'} (${rest.length} lines) did not fit in GitHub's 1 MiB job summary; the annotations and the SARIF report hold every finding.\n`;
  return Buffer.concat([markdown.subarray(0, cut), Buffer.from(note)]);
}

// Run as a script (the action's lint step), not when a test imports it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href && process.argv[2] !== undefined)
  process.stdout.write(jobSummary(readFileSync(process.argv[2])));
