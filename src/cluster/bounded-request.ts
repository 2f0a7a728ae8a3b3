// One HTTP(S) request whose answer is read up to a limit: a server (or something posing as one)
// that never stops sending would otherwise grow memory without bound. The API server client and
// the Prometheus client read their answers through it.
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';

export type RequestFunction = (url: URL, options: RequestOptions, callback: (res: IncomingMessage) => void) => ClientRequest;

export interface BoundedAnswer {
  status: number;
  body: string;
  bytes: number;
}

/** Sends the request (with `body`, if any) and reads its answer; past `limit` bytes the request is destroyed with `tooLarge()`. */
export function boundedRequest(
  send: RequestFunction,
  url: URL,
  options: RequestOptions,
  body: string | undefined,
  limit: number,
  tooLarge: () => Error,
): Promise<BoundedAnswer> {
  return new Promise<BoundedAnswer>((resolve, reject) => {
    const req = send(url, options, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > limit) req.destroy(tooLarge());
        else chunks.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 500, body: Buffer.concat(chunks).toString('utf8'), bytes }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
