// A Prometheus base URL from the command line, and how it is shown (never with its credentials).

/** The URL as shown in messages: no user name or password, no query. */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/$/, '');
}

/** A base URL given on the command line; undefined with the reason when it is not one. */
export function prometheusUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${withoutCredentials(text)}" is not a URL (e.g. https://prometheus.example:9090)`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `a Prometheus URL is http:// or https:// (got ${url.protocol})`;
  if (url.search !== '' || url.hash !== '') return 'give the Prometheus base URL without a query or fragment';
  return url;
}

/**
 * Text that failed to parse as a URL, as shown: everything before the last `@` of its authority is
 * taken for a user name and password (`https://user:secret@ho st`), and hidden. Linear: one scan.
 */
export function withoutCredentials(text: string): string {
  const scheme = text.indexOf('://');
  const start = scheme === -1 ? 0 : scheme + 3;
  let end = text.length;
  for (const stop of ['/', '?', '#']) {
    const at = text.indexOf(stop, start);
    if (at !== -1 && at < end) end = at;
  }
  const at = text.lastIndexOf('@', end - 1);
  return at < start ? text : `${text.slice(0, start)}…@${text.slice(at + 1)}`;
}
