// A minimal HTTPS client for tests: real TLS to the server on loopback.
import { request, type RequestOptions } from 'node:https';
import { readFileSync } from 'node:fs';
import type { PeerCertificate, TLSSocket } from 'node:tls';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
  peerCertificate: PeerCertificate | undefined;
}

export function httpsRequest(
  port: number,
  path: string,
  options: { method?: string; body?: string | Buffer; contentType?: string; ca: string; cert?: string; key?: string; tls?: Partial<RequestOptions> },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
        ca: readFileSync(options.ca),
        ...(options.cert ? { cert: readFileSync(options.cert), key: readFileSync(options.key!) } : {}),
        headers: options.body === undefined ? {} : { 'content-type': options.contentType ?? 'application/json' },
        agent: false,
        ...options.tls,
      },
      (res) => {
        const peerCertificate = (res.socket as TLSSocket).getPeerCertificate?.();
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, peerCertificate });
        });
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
