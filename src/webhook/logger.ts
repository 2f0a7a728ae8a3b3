import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Log fields that could carry object contents or credentials: never written. The code logs named
 * fields only; this is the safety net. (Wildcard paths would cost a traversal of every line.)
 */
const REDACTED_PATHS = ['object', 'oldObject', 'request.object', 'request.oldObject', 'body', 'req.headers.authorization', 'req.headers.cookie'];

/** How long a log line may wait in the buffer before it is written. */
const FLUSH_INTERVAL_MS = 1000;

/**
 * The webhook's logger. Without a destination it writes to stdout asynchronously in 4 KiB batches
 * (a write system call per review would cost throughput), flushed at least every second and on
 * exit, so a line is never held long or lost when the process ends.
 */
export function createLogger(destination?: NodeJS.WritableStream): Logger {
  if (destination !== undefined)
    return pino({ level: process.env.LOG_LEVEL ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination as DestinationStream);
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const timer = setInterval(() => {
    try {
      stream.flush();
    } catch {
      // nothing buffered, or the stream is closing
    }
  }, FLUSH_INTERVAL_MS);
  timer.unref();
  process.once('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // the stream was never opened
    }
  });
  return pino({ level: process.env.LOG_LEVEL ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, stream);
}

/** Writes what is buffered; call before exiting. */
export function flushLogger(logger: Logger): void {
  try {
    logger.flush();
  } catch {
    // a destination that cannot flush has nothing buffered
  }
}
