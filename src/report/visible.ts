// Text from the inputs (object names, keys, annotation values, paths, a tool's or an API server's
// messages) shown on a terminal or in a CI log: control characters would move the cursor, recolour
// or clear the screen, and a newline would start a line of its own — a forged `::error` or
// `::stop-commands::` that GitHub's runner obeys. Each is shown as a visible escape instead, as are
// the bidirectional-text controls that make a line read differently from what it holds.
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\x1b': '\\e' };

export function visible(text: string): string {
  return text.replace(UNSAFE, (character) => NAMED[character] ?? `\\u{${character.codePointAt(0)!.toString(16)}}`);
}
