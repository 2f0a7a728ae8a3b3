import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** CA bundle to verify client certificates with; when set, clients must present one. */
  clientCaFile?: string;
}

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
  fingerprint: string;
}

/** Reads the certificate and key; throws with the file named when one cannot be read or they do not match. */
export function loadTlsMaterial(files: TlsFiles): TlsMaterial {
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`cannot read the ${what} ${file}: ${(error as Error).message}`, { cause: error });
    }
  };
  const cert = read(files.certFile, 'TLS certificate');
  const key = read(files.keyFile, 'TLS key');
  const ca = files.clientCaFile === undefined ? undefined : read(files.clientCaFile, 'client CA bundle');
  try {
    createSecureContext({ cert, key, ...(ca ? { ca } : {}) });
  } catch (error) {
    throw new Error(`the TLS certificate ${files.certFile} and key ${files.keyFile} cannot be used together: ${(error as Error).message}`, { cause: error });
  }
  const fingerprint = createHash('sha256')
    .update(cert)
    .update(key)
    .update(ca ?? '')
    .digest('hex');
  return { cert, key, ...(ca ? { ca } : {}), fingerprint };
}

export function secureContextOptions(material: TlsMaterial): { cert: Buffer; key: Buffer; ca?: Buffer } {
  return { cert: material.cert, key: material.key, ...(material.ca ? { ca: material.ca } : {}) };
}
