// The progress of long work as one line on a terminal's stderr: shown only on a terminal, not in CI,
// not with TERM=dumb or --no-progress; only once the work has taken half a second; redrawn at most
// ten times a second; cut to the terminal's width; erased when the work ends, or the process does,
// so that the report starts on a clean line. Node's own readline moves the cursor and clears the
// line (no escape codes of ours); the cursor is never hidden, so an interrupt leaves nothing to undo.
import { clearLine, cursorTo } from 'node:readline';
import { eastAsianWidth } from 'get-east-asian-width';
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
    // Ctrl-C: Node's default would end the process before the line is erased. Erased, then the exit a
    // shell expects of an interrupt (128 + SIGINT's 2); the same for a SIGTERM (143).
    process.once('SIGINT', this.onInterrupt);
    process.once('SIGTERM', this.onInterrupt);
  }

  private readonly onInterrupt = (signal: NodeJS.Signals) => {
    this.end();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };

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
    // One cell short of the width: a line that fills the last column wraps on some terminals.
    const width = (this.stream.columns ?? 80) - 1;
    if (width < 1) return; // no room for a line at all (a 1-column terminal)
    const text = fitCells(
      `${event.task.replace('{count}', `${event.done}/${event.total}`)}${event.current === undefined ? '' : ` (${visible(event.current)})`}`,
      width,
    );
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
    process.removeListener('SIGINT', this.onInterrupt);
    process.removeListener('SIGTERM', this.onInterrupt);
    this.clear();
    this.latest = undefined;
    this.ended = true;
  }
}

/** Terminal cells of one code point: 2 for wide and fullwidth East Asian characters, 0 for combining marks and joiners. */
function cellsOf(character: string): number {
  if (/^[\p{M}\u200b-\u200f\u2060\ufeff]$/u.test(character)) return 0;
  return eastAsianWidth(character.codePointAt(0)!);
}

/** The text cut to `width` terminal cells, with an ellipsis where it was cut (counted in cells, not code units). */
export function fitCells(text: string, width: number): string {
  let cells = 0;
  for (const character of text) cells += cellsOf(character);
  if (cells <= width) return text;
  let kept = '';
  let used = 0;
  for (const character of text) {
    const next = cellsOf(character);
    if (used + next > width - 1) break;
    kept += character;
    used += next;
  }
  return `${kept}…`;
}
