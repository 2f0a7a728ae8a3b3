// Loaded with `node --import` into a measured process: at exit it writes the process's whole CPU
// time (start-up included) and its peak RSS to the file named by PROBE_LINT_USAGE_FILE.
// node:fs is taken from the process, not imported: an import would build node:fs's ES module (and
// load fs.promises, streams and readline with it) in every measured process, baseline included.
const { writeFileSync } = process.getBuiltinModule('node:fs');

const file = process.env.PROBE_LINT_USAGE_FILE;
if (file !== undefined) {
  process.on('exit', () => {
    const cpu = process.cpuUsage();
    writeFileSync(file, JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
  });
}
