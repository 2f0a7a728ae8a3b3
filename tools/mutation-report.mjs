// What a Stryker run left (npm run test:mutation:report, after npm run test:mutation): the score, every
// mutant that survived or that no suite reaches, and the mutants ignored by a `// Stryker disable`
// comment, grouped by the reason the comment gives (why each changes nothing).
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'reports/mutation/mutation.json';
const report = JSON.parse(readFileSync(file, 'utf8'));
const counts = { killed: 0, left: 0, ignored: 0 };
const left = [];
const reasons = new Map();
for (const [path, { source, mutants }] of Object.entries(report.files)) {
  const lines = source.split('\n');
  for (const mutant of mutants) {
    const { line, column } = mutant.location.start;
    if (mutant.status === 'Killed' || mutant.status === 'Timeout') counts.killed++;
    else if (mutant.status === 'Survived' || mutant.status === 'NoCoverage') {
      counts.left++;
      left.push(`${path}:${line}:${column} ${mutant.status} ${mutant.mutatorName} → ${JSON.stringify(mutant.replacement ?? '')}\n    ${lines[line - 1]?.trim()}`);
    } else if (mutant.status === 'Ignored') {
      counts.ignored++;
      const reason = `${mutant.statusReason ?? 'no reason given'}`;
      const places = reasons.get(reason) ?? [];
      places.push(`${path}:${line} ${mutant.mutatorName}`);
      reasons.set(reason, places);
    }
  }
}
const score = (100 * counts.killed) / (counts.killed + counts.left);
console.log(`mutation score ${score.toFixed(2)}%: ${counts.killed} killed, ${counts.left} left, ${counts.ignored} ignored by a comment that says why`);
if (left.length > 0) console.log(`\nleft (kill each with a test, or say in a Stryker comment why it changes nothing):\n${left.join('\n')}`);
console.log('\nignored, by reason:');
for (const [reason, places] of [...reasons].sort((a, b) => b[1].length - a[1].length)) {
  console.log(`  ${places.length} × ${reason}\n      ${[...new Set(places)].join('\n      ')}`);
}
