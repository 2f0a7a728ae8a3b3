// Creating many objects fast: one keep-alive HTTPS agent, many requests in flight.
import { Agent, request } from 'node:https';
import { readFileSync } from 'node:fs';

export interface BulkClient {
  post(path: string, body: unknown): Promise<number>;
  /** A POST that also says why it failed: the API server's Status message. */
  create(path: string, body: unknown): Promise<{ status: number; message?: string }>;
  put(path: string, body: unknown): Promise<number>;
  close(): void;
}

export function bulkClient(server: string, credentials: { ca: string; cert: string; key: string }, maxSockets = 48): BulkClient {
  const agent = new Agent({
    keepAlive: true,
    maxSockets,
    ca: readFileSync(credentials.ca),
    cert: readFileSync(credentials.cert),
    key: readFileSync(credentials.key),
  });
  const send = (method: string, path: string, body: unknown) =>
    new Promise<{ status: number; message?: string }>((resolve, reject) => {
      const req = request(new URL(path, server), { method, agent, headers: { 'content-type': 'application/json', accept: 'application/json' } }, (res) => {
        const status = res.statusCode ?? 0;
        // Only a failure's body is kept: its Status says why.
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => status >= 300 && chunks.push(chunk));
        res.on('end', () => {
          if (status < 300) return resolve({ status });
          const text = Buffer.concat(chunks).toString('utf8');
          let message = text;
          try {
            message = (JSON.parse(text) as { message?: string }).message ?? text;
          } catch {
            // not a Status: the text as it came
          }
          resolve({ status, message });
        });
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  return {
    post: async (path, body) => (await send('POST', path, body)).status,
    put: async (path, body) => (await send('PUT', path, body)).status,
    create: (path, body) => send('POST', path, body),
    close: () => agent.destroy(),
  };
}

/** Runs `count` tasks with at most `parallel` at a time; returns how many did not answer 201/200. */
export async function inParallel(count: number, parallel: number, task: (index: number) => Promise<number>): Promise<number> {
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const status = await task(index);
      if (status !== 201 && status !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return failed;
}
