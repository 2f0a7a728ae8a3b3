// The language server's input, frame by frame, before the protocol library reads it: a frame whose
// header cannot be read (no Content-Length, one that is not a number, or a body larger than any
// file probe-lint lints) is dropped and answered with a JSON-RPC parse error, and reading goes on at
// the next header. The library alone stops reading for good at the first bad header: one stray
// write to the server's stdin would leave an editor with a silent server.
import { Transform, type TransformCallback } from 'node:stream';

/** Headers longer than this are not headers. */
const MAX_HEADER_BYTES = 8 * 1024;
const SEPARATOR = Buffer.from('\r\n\r\n');
const HEADER_START = Buffer.from('Content-Length:');

/** Passes well-formed frames through unchanged; calls `malformed` with the reason for each frame dropped. */
export class FrameGuard extends Transform {
  private buffered: Buffer = Buffer.alloc(0);
  /** Bytes of the current frame's body still to pass through. */
  private bodyLeft = 0;

  constructor(
    private readonly maxBodyBytes: number,
    private readonly malformed: (reason: string) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    this.drain();
    done();
  }

  private drain(): void {
    for (;;) {
      if (this.bodyLeft > 0) {
        if (this.buffered.length === 0) return;
        const part = this.buffered.subarray(0, this.bodyLeft);
        this.push(part);
        this.bodyLeft -= part.length;
        this.buffered = this.buffered.subarray(part.length);
        if (this.bodyLeft > 0) return;
        continue;
      }
      const end = this.buffered.indexOf(SEPARATOR);
      if (end === -1) {
        if (this.buffered.length > MAX_HEADER_BYTES) this.resync('the header is longer than 8 KiB');
        return;
      }
      const header = this.buffered.subarray(0, end).toString('ascii');
      const length = contentLength(header);
      if (typeof length === 'string' || length > this.maxBodyBytes) {
        this.resync(typeof length === 'string' ? length : `a body of ${length} bytes is larger than the ${this.maxBodyBytes} bytes probe-lint reads`);
        continue;
      }
      this.push(this.buffered.subarray(0, end + SEPARATOR.length));
      this.buffered = this.buffered.subarray(end + SEPARATOR.length);
      this.bodyLeft = length;
      if (length === 0) continue;
    }
  }

  /** Drops what is buffered up to the next header that may start a frame, and says why. */
  private resync(reason: string): void {
    this.malformed(reason);
    const next = this.buffered.indexOf(HEADER_START, 1);
    this.buffered = next === -1 ? Buffer.alloc(0) : this.buffered.subarray(next);
  }
}

/** The body's length from a frame header, or why it cannot be read. */
function contentLength(header: string): number | string {
  let length: number | string = 'the frame has no Content-Length header';
  for (const line of header.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon === -1) return `"${line.slice(0, 40)}" is not a header`;
    if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
    const value = line.slice(colon + 1).trim();
    if (!/^\d{1,12}$/.test(value)) return `Content-Length "${value.slice(0, 40)}" is not a number of bytes`;
    length = Number(value);
  }
  return length;
}
