import pino, { type DestinationStream, type Logger } from 'pino';
import { LineBatch } from './line-batch.js';

/**
 * Log fields that could carry object contents or credentials: never written. The code logs named
 * fields only; this is the safety net. (Wildcard paths would cost a traversal of every line.)
 */
const REDACTED_PATHS = ['object', 'oldObject', 'request.object', 'request.oldObject', 'body', 'req.headers.authorization', 'req.headers.cookie'];

/** How long a log line may wait in the buffer before it is written. */
const FLUSH_INTERVAL_MS = 1000;

/**
 * What one write system call may take. sonic-boom writes one chunk at a time, each a round trip
 * through libuv's thread pool; at its default of 16 KiB, a loop turn busy with 50 connections'
 * reviews logged more than one chunk, and the buffer grew by 20 MB a minute under sustained load.
 */
const MAX_WRITE_BYTES = 1024 * 1024;

/**
 * The most log text held while stdout cannot take it (a slow log shipper, a full pipe). Past it,
 * lines are dropped and counted, not held: the webhook's memory must not follow its stdout's reader.
 */
export const LOG_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * The webhook's logger. Without a destination it writes to stdout asynchronously in 4 KiB batches
 * (a write system call per review would cost throughput), the lines of a loop turn handed to
 * sonic-boom together (line-batch.ts), flushed at least every second and on
 * exit, so a line is never held long or lost when the process ends. At most LOG_BUFFER_BYTES wait;
 * a line past that is dropped, `onDrop` is told, and a warning says how many once a second.
 */
export function createLogger(destination?: NodeJS.WritableStream, onDrop?: () => void): Logger {
  const options = { level: process.env.LOG_LEVEL ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (destination !== undefined) return pino(options, destination as DestinationStream);
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096, maxWrite: MAX_WRITE_BYTES, maxLength: LOG_BUFFER_BYTES });
  const batch = new LineBatch(stream);
  const logger = pino(options, batch);
  let dropped = 0;
  // sonic-boom drops what it is given whole: a batch of lines, each counted.
  stream.on('drop', (data: string) => {
    for (let at = data.indexOf('\n'); at !== -1; at = data.indexOf('\n', at + 1)) {
      dropped++;
      onDrop?.();
    }
  });
  const timer = setInterval(() => {
    if (dropped > 0) {
      logger.warn({ droppedLines: dropped, bufferBytes: LOG_BUFFER_BYTES }, 'log lines dropped: stdout did not take them as fast as they came');
      dropped = 0;
    }
    try {
      batch.flush();
    } catch {
      // nothing buffered, or the stream is closing
    }
  }, FLUSH_INTERVAL_MS);
  timer.unref();
  process.once('exit', () => {
    try {
      batch.flushSync();
    } catch {
      // the stream was never opened
    }
  });
  return logger;
}

/** Writes what is buffered; call before exiting. */
export function flushLogger(logger: Logger): void {
  try {
    logger.flush();
  } catch {
    // a destination that cannot flush has nothing buffered
  }
}
