// One way to write a file: all or nothing. --fix on a disk that fills up mid-write, on a read-only
// file, or on a file changed during the run leaves the file as it was, exits 2 and names the file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, linkSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeFileAtomic, WriteRefused } from '../src/source/atomic-write.js';
import { CLI, podYaml } from './helpers.js';

/** A two-document manifest with an error --fix removes, padded with comments to span several pages. */
const FIXABLE =
  podYaml('readinessProbe:\n  tcpSocket:\n    port: 80\n  terminationGracePeriodSeconds: 5\nlivenessProbe:\n  httpGet:\n    path: /livez\n    port: 80') +
  Array.from({ length: 400 }, (_, index) => `# padding line ${index} so that the fixed file needs several pages of the small disk\n`).join('') +
  '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: second-document}\ndata: {kept: "yes"}\n';

// A disk of its own that can fill up: a small tmpfs, mounted in a user and mount namespace of the test's own.
const unshare = spawnSync('unshare', ['-rm', 'true']);
const noNamespaces =
  unshare.status === 0 ? false : `unshare -rm does not work here (${unshare.error?.message ?? unshare.stderr.toString().trim()}): a full disk cannot be made`;

describe('writing files', () => {
  it('--fix on a disk that fills up mid-write leaves the manifest whole, names it, and exits 2', { skip: noNamespaces }, () => {
    const work = mkdtempSync(join(tmpdir(), 'probe-lint-full-disk-'));
    const original = join(work, 'original.yaml');
    writeFileSync(original, FIXABLE);
    // In the namespace: a 64 KiB disk holding the manifest, filled up but for two pages, then --fix.
    const script = [
      'set -e',
      `mount -t tmpfs -o size=64k none "${work}/disk" 2>/dev/null || { mkdir -p "${work}/disk" && mount -t tmpfs -o size=64k none "${work}/disk"; }`,
      `cp "${original}" "${work}/disk/pod.yaml"`,
      `dd if=/dev/zero of="${work}/disk/filler" bs=4096 2>/dev/null || true`,
      `truncate -s -8192 "${work}/disk/filler"`,
      `cd "${work}/disk"`,
      `set +e; "${process.execPath}" "${CLI}" --fix -- pod.yaml >stdout.txt 2>stderr.txt; echo $? > code.txt`,
      // What the disk holds, copied out before the namespace (and its mount) goes.
      `rm -f filler; cp stdout.txt stderr.txt code.txt pod.yaml "${work}/"; ls -a > "${work}/listing.txt"`,
    ].join('\n');
    const run = spawnSync('unshare', ['-rm', 'sh', '-c', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const stderr = readFileSync(join(work, 'stderr.txt'), 'utf8');
    assert.equal(readFileSync(join(work, 'code.txt'), 'utf8').trim(), '2', stderr);
    assert.match(stderr, /pod\.yaml.*not fixed: cannot write the file: .*(no space left|bytes could be written)/i);
    assert.match(stderr, /fixed 0 problems in 0 files/);
    assert.equal(readFileSync(join(work, 'pod.yaml'), 'utf8'), FIXABLE, 'the manifest is as it was, both documents whole');
    assert.deepEqual(
      readFileSync(join(work, 'listing.txt'), 'utf8')
        .split('\n')
        .filter((name) => name.includes('.tmp')),
      [],
      'no temporary file is left behind',
    );
  });

  it('refuses a read-only file, a changed file, one with other hard links, and writes a symlink through', () => {
    const work = mkdtempSync(join(tmpdir(), 'probe-lint-writes-'));
    const file = join(work, 'a.yaml');
    writeFileSync(file, 'old');
    chmodSync(file, 0o444);
    assert.throws(
      () => writeFileAtomic(file, Buffer.from('new'), { expected: Buffer.from('old') }),
      (error) => error instanceof WriteRefused && /read-only/.test(error.message),
    );
    chmodSync(file, 0o644);
    assert.throws(() => writeFileAtomic(file, Buffer.from('new'), { expected: Buffer.from('older') }), /changed while probe-lint was running/);
    linkSync(file, join(work, 'b.yaml'));
    assert.throws(() => writeFileAtomic(file, Buffer.from('new')), /2 hard links/);
    assert.equal(readFileSync(file, 'utf8'), 'old');
    const target = join(work, 'target.yaml');
    writeFileSync(target, 'before');
    chmodSync(target, 0o640);
    symlinkSync('target.yaml', join(work, 'link.yaml'));
    writeFileAtomic(join(work, 'link.yaml'), Buffer.from('after'), { expected: Buffer.from('before') });
    assert.equal(readFileSync(target, 'utf8'), 'after');
    assert.equal(readdirSync(work).filter((name) => name.endsWith('.tmp')).length, 0);
    const fresh = join(work, 'fresh.json');
    writeFileAtomic(fresh, Buffer.from('{}'), { mode: 0o600 });
    assert.equal(readFileSync(fresh, 'utf8'), '{}');
  });
});
