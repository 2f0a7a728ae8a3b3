// The webhook's log lines, handed to sonic-boom a batch at a time. sonic-boom measures its pending
// chunk again on every write it is given (Buffer.byteLength of a string that grows by `+=` while a
// write is in flight), so a line per write copied every line before it in the chunk: about 4 µs of
// a review's CPU under the bench's load. Lines written in one turn of the event loop go as one
// string at the end of the turn, or sooner once a batch reaches BATCH_CHARS, so that a burst of
// lines in one synchronous stretch is never held here past that (sonic-boom's own bound applies).
import type { DestinationStream } from 'pino';

/** The most text a batch holds before it is handed on, in UTF-16 code units. */
const BATCH_CHARS = 64 * 1024;

/** What a batch hands its lines to: sonic-boom's write, flush and flushSync. */
export interface BatchTarget {
  write(data: string): boolean;
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
}

export class LineBatch implements DestinationStream {
  private lines: string[] = [];
  private length = 0;
  private scheduled = false;

  constructor(private readonly target: BatchTarget) {}

  write(line: string): boolean {
    this.lines.push(line);
    this.length += line.length;
    if (this.length >= BATCH_CHARS) this.handOn();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.atTurnEnd);
    }
    return true;
  }

  /** Hands on what is held, then asks the target to write it. */
  flush(callback?: (error?: Error) => void): void {
    this.handOn();
    this.target.flush(callback);
  }

  /** Hands on what is held and writes it before returning (on exit). */
  flushSync(): void {
    this.handOn();
    this.target.flushSync();
  }

  private readonly atTurnEnd = (): void => {
    this.scheduled = false;
    this.handOn();
  };

  private handOn(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.length = 0;
    this.target.write(text);
  }
}
