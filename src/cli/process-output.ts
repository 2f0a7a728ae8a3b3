// The process's stdout and stderr for the CLI, made only when needed. On a pipe, process.stdout and
// process.stderr are sockets, and making one loads node:net, for streams that a clean run writes a
// line to, or nothing. So stdout is written with write(2) directly while it is not a terminal, as
// Node itself writes to files and, on Linux, to pipes (synchronously); the stream is made only for a
// terminal, for a command that speaks over it (lsp), or for a pipe that will not take more at once
// (EAGAIN: a descriptor left non-blocking by a process that shares it). stderr's stream is made when
// something is first written there. With node:net loaded only for a host (model/loopback.ts), one
// small file on pipes (the pre-commit case) went from 47.7 to 43.9 ms CPU.
import { fstatSync, statSync, writeSync } from 'node:fs';

/** Settles when the stream has written what it holds, or can write no more (the reader went away). */
function taken(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    stream.on('drain', done).on('close', done).on('error', done);
  });
}

/**
 * Whether the descriptor is a terminal: asked of its stream only when it is a character device (a
 * terminal is one) other than /dev/null (output thrown away: `probe-lint … > /dev/null` for its exit code).
 */
function isTerminal(fd: 1 | 2, stream: () => NodeJS.WriteStream): boolean {
  try {
    const stats = fstatSync(fd);
    return stats.isCharacterDevice() && stats.rdev !== nullDevice() && stream().isTTY === true;
  } catch {
    return false; // no such descriptor
  }
}

/** /dev/null's device number, or undefined where there is none. */
function nullDevice(): number | undefined {
  try {
    return statSync('/dev/null').rdev;
  } catch {
    return undefined;
  }
}

export class ProcessOutput {
  /** The reader went away (`probe-lint … | head -1`): the run ends quietly, as grep's does, with its own exit code. */
  private stdoutClosed = false;
  private stdoutStream: NodeJS.WriteStream | undefined;
  private stderrStream: NodeJS.WriteStream | undefined;
  readonly stdoutIsTerminal = isTerminal(1, () => this.stdout());
  readonly stderrIsTerminal = isTerminal(2, () => this.stderr());

  /** process.stdout, made once; from then on every write goes through it, so nothing is written out of order. */
  stdout(): NodeJS.WriteStream {
    if (this.stdoutStream === undefined) {
      this.stdoutStream = process.stdout;
      this.stdoutStream.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error;
        this.stdoutClosed = true;
      });
    }
    return this.stdoutStream;
  }

  stderr(): NodeJS.WriteStream {
    if (this.stderrStream === undefined) {
      this.stderrStream = process.stderr;
      this.stderrStream.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error;
      });
    }
    return this.stderrStream;
  }

  writeStdout(text: string): void {
    if (this.stdoutClosed) return;
    if (this.stdoutStream !== undefined || this.stdoutIsTerminal) {
      this.stdout().write(text);
      return;
    }
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(1, bytes, written);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') {
        this.stdoutClosed = true;
        return;
      }
      if (code !== 'EAGAIN') throw error;
      // The rest, and everything after it, through the stream, which waits for the pipe.
      this.stdout().write(bytes.subarray(written));
    }
  }

  /** Settles once stdout has taken what was written (a long report waits for a slow reader, not in memory). */
  stdoutWritten(): Promise<void> {
    const stream = this.stdoutStream;
    return this.stdoutClosed || stream === undefined || !stream.writableNeedDrain ? Promise.resolve() : taken(stream);
  }

  writeStderr(text: string): void {
    if (!this.stderr().destroyed) this.stderr().write(text);
  }
}
