// Certificates made for a test with the real openssl CLI: a CA, server certificates for the
// loopback names, and a client certificate, in a temporary folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  directory: string;
  caCert: string;
  caKey: string;
  /** Issues a certificate signed by the CA; returns the cert and key paths. */
  issue(name: string, options?: { serverNames?: string[]; client?: boolean; organization?: string }): { cert: string; key: string };
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeTestPki(): TestPki {
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-pki-'));
  const caKey = join(directory, 'ca.key');
  const caCert = join(directory, 'ca.crt');
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      caKey,
      '-out',
      caCert,
      '-subj',
      '/CN=probe-lint test CA',
      '-days',
      '2',
    ],
    directory,
  );
  let serial = 1;
  return {
    directory,
    caCert,
    caKey,
    issue(name, options = {}) {
      const file = name.replace(/[^A-Za-z0-9.-]/g, '_');
      const key = join(directory, `${file}.key`);
      const csr = join(directory, `${file}.csr`);
      const cert = join(directory, `${file}.crt`);
      const extensions = join(directory, `${file}.ext`);
      const names = options.serverNames ?? ['localhost', '127.0.0.1'];
      writeFileSync(
        extensions,
        options.client
          ? 'extendedKeyUsage = clientAuth\n'
          : `subjectAltName = ${names.map((entry) => (/^[\d.]+$/.test(entry) ? `IP:${entry}` : `DNS:${entry}`)).join(',')}\nextendedKeyUsage = serverAuth\n`,
      );
      openssl(
        [
          'req',
          '-new',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          csr,
          '-subj',
          `${options.organization ? `/O=${options.organization}` : ''}/CN=${name}`,
        ],
        directory,
      );
      openssl(
        ['x509', '-req', '-in', csr, '-CA', caCert, '-CAkey', caKey, '-set_serial', String(serial++), '-out', cert, '-days', '2', '-extfile', extensions],
        directory,
      );
      return { cert, key };
    },
  };
}
