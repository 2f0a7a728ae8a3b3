// The progress of long work as one line on a terminal's stderr: shown only on a terminal, not in CI,
// not with TERM=dumb or --no-progress; only once the work has taken half a second; redrawn at most
// ten times a second; cut to the terminal's width; erased when the work ends, or the process does,
// so that the report starts on a clean line. Node's own readline moves the cursor and clears the
// line (no escape codes of ours); the cursor is never hidden, so an interrupt leaves nothing to undo.
import { clearLine, cursorTo } from 'node:readline';
import type { ProgressEvent, ProgressListener } from '../model/progress.js';
import { visible } from '../report/visible.js';

export interface ProgressTerminal {
  columns?: number;
  write(text: string): unknown;
}

/** Shown only when the work has taken this long: a small file shows nothing. */
const DELAY_MS = 500;
/** At most this often. */
const REDRAW_MS = 100;

export class ProgressLine {
  private readonly started: number;
  private lastDraw = 0;
  private drawn = false;
  private latest: ProgressEvent | undefined;
  private ended = false;
  private readonly onExit = () => this.end();

  constructor(
    private readonly stream: NodeJS.WritableStream & ProgressTerminal,
    private readonly now: () => number = Date.now,
  ) {
    // The delay is measured on the same clock as the events.
    this.started = now();
    process.once('exit', this.onExit);
  }

  /** The listener to hand the pipeline. */
  readonly listener: ProgressListener = (event) => {
    if (this.ended) return;
    this.latest = event;
    const at = this.now();
    // The work may keep the event loop busy: the delay and the rate are judged at each event, not by timers.
    if (at - this.started < DELAY_MS || at - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = at;
    this.draw();
  };

  private draw(): void {
    const event = this.latest;
    if (event === undefined) return;
    const width = Math.max(20, (this.stream.columns ?? 80) - 1);
    let text = `${event.task.replace('{count}', `${event.done}/${event.total}`)}${event.current === undefined ? '' : ` (${visible(event.current)})`}`;
    if (text.length > width) text = `${text.slice(0, width - 1)}…`;
    clearLine(this.stream, 0);
    cursorTo(this.stream, 0);
    this.stream.write(text);
    this.drawn = true;
  }

  /** Erases the line, if one was drawn, so that other output starts on a clean line; the next event draws it again. */
  clear(): void {
    if (!this.drawn) return;
    clearLine(this.stream, 0);
    cursorTo(this.stream, 0);
    this.drawn = false;
  }

  /** The work is over: the line is erased, and stays so. */
  end(): void {
    process.removeListener('exit', this.onExit);
    this.clear();
    this.latest = undefined;
    this.ended = true;
  }
}
