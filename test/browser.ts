// Headless Chromium (Debian's `chromium`) for the tests that look at what probe-lint draws: a PNG of
// a page at device scale 1 (so SVG coordinates are pixels), light or dark, and the DOM after its
// scripts ran. Each run gets a profile of its own and is killed if it takes too long.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';

/** The Chromium binary, or undefined when none is installed. */
export function chromiumBinary(): string | undefined {
  for (const name of [process.env.PROBE_LINT_CHROMIUM, 'chromium', 'chromium-browser', 'google-chrome'].filter(Boolean) as string[]) {
    try {
      return execFileSync('sh', ['-c', `command -v "${name}"`], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not this one
    }
  }
  return undefined;
}

function run(args: string[]): string {
  const profile = mkdtempSync(join(tmpdir(), 'probe-lint-chromium-'));
  try {
    const result = spawnSync(
      chromiumBinary()!,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--hide-scrollbars',
        '--no-first-run',
        `--user-data-dir=${profile}`,
        '--force-device-scale-factor=1',
        ...args,
      ],
      { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL', env: { ...process.env, HOME: profile } },
    );
    if (result.status !== 0) throw new Error(`chromium failed (${result.status ?? result.signal}): ${result.stderr.slice(-2000)}`);
    return result.stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

export interface Picture {
  width: number;
  height: number;
  /** [r, g, b] of the pixel at (x, y). */
  at(x: number, y: number): [number, number, number];
}

/** A screenshot of `file` in a window of the given size; `dark` asks the page for its dark colour scheme. */
export function screenshot(file: string, size: { width: number; height: number }, dark = false): Picture {
  const directory = mkdtempSync(join(tmpdir(), 'probe-lint-shot-'));
  try {
    const png = join(directory, 'shot.png');
    // Blink's preferredColorScheme: 0 is dark, 1 is light.
    run([
      `--window-size=${size.width},${size.height}`,
      `--blink-settings=preferredColorScheme=${dark ? 0 : 1}`,
      `--screenshot=${png}`,
      pathToFileURL(file).href,
    ]);
    const image = PNG.sync.read(readFileSync(png));
    return {
      width: image.width,
      height: image.height,
      at(x, y) {
        const index = (image.width * Math.round(y) + Math.round(x)) * 4;
        return [image.data[index]!, image.data[index + 1]!, image.data[index + 2]!];
      },
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The page's DOM once its scripts have run (up to 10 s of virtual time). */
export function renderedDom(file: string): string {
  return run(['--virtual-time-budget=10000', '--dump-dom', pathToFileURL(file).href]);
}
