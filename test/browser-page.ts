// Debian's Chromium driven over the DevTools protocol (puppeteer-core, no browser download): a page
// opened with everything it did recorded — console errors, uncaught exceptions, Content-Security-Policy
// violations and every request — for the tests that must see what a real browser makes of a report.
/// <reference lib="dom" />
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { chromiumBinary } from './browser.js';

export interface OpenedPage {
  page: Page;
  /** Console messages of type error, and uncaught exceptions. */
  errors: string[];
  /** What the page's CSP refused, as the browser reported it. */
  violations: string[];
  /** Every URL the page asked for, the page's own included. */
  requests: string[];
}

export interface LaunchedBrowser {
  browser: Browser;
  /** Closes the browser, then removes its profile. */
  close(): Promise<void>;
}

/** One browser for a test file; `close` it in `after`. */
export async function launchBrowser(): Promise<LaunchedBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'probe-lint-puppeteer-'));
  const browser = await puppeteer.launch({
    executablePath: chromiumBinary()!,
    headless: true,
    userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--force-device-scale-factor=1'],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

export async function openPage(
  { browser }: LaunchedBrowser,
  file: string,
  options: { javaScript?: boolean; dark?: boolean; search?: string; hash?: string; width?: number } = {},
): Promise<OpenedPage> {
  const page = await browser.newPage();
  const opened: OpenedPage = { page, errors: [], violations: [], requests: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') opened.errors.push(message.text());
  });
  page.on('pageerror', (error) => opened.errors.push(String(error)));
  page.on('request', (request) => opened.requests.push(request.url()));
  await page.setJavaScriptEnabled(options.javaScript ?? true);
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: options.dark === true ? 'dark' : 'light' }]);
  await page.setViewport({ width: options.width ?? 1200, height: 900 });
  // Listened for before the page's own code runs; the DevTools protocol's scripts are not held to its CSP.
  const session = await page.createCDPSession();
  await session.send('Log.enable');
  session.on('Log.entryAdded', ({ entry }) => {
    if (entry.source === 'security' || /Content Security Policy/i.test(entry.text)) opened.violations.push(entry.text);
  });
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  await page.goto(`${pathToFileURL(file).href}${options.search ?? ''}${options.hash ?? ''}`, { waitUntil: 'load' });
  return opened;
}

/** axe-core's source, to run in a page (Runtime.evaluate is not held to the page's CSP, a script tag would be). */
export function axeSource(): string {
  return readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
}
