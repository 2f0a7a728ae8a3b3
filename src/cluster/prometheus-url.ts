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
    return `"${text}" is not a URL (e.g. https://prometheus.example:9090)`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `a Prometheus URL is http:// or https:// (got ${url.protocol})`;
  if (url.search !== '' || url.hash !== '') return 'give the Prometheus base URL without a query or fragment';
  return url;
}
