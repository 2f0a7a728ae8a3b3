// The HTML encoder: the one way a value from a manifest, a chart or a cluster enters the HTML report.
// Text is escaped as character data (xml.ts, which HTML reads the same way), attribute values are
// always double-quoted and escaped, and the controls a terminal would hide (visible.ts: bidirectional
// overrides, line separators) are shown as escapes, so a line reads as what it holds. Element and
// attribute names are the formatter's own constants, never data.
import { visible } from './visible.js';
import { xmlAttribute, xmlText } from './xml.js';

/** One line of text as character data. */
export function htmlText(text: string): string {
  return xmlText(visible(text));
}

/** Text of several lines (a patch, evidence) as character data: its line ends kept, each line shown as `htmlText` shows it. */
export function htmlLines(text: string): string {
  return text.split('\n').map(htmlText).join('\n');
}

/** Elements HTML writes without an end tag. */
const VOID_ELEMENTS = new Set(['input', 'meta', 'br']);

/** `<name a="…">content</name>` (`<input …>` for a void element): attribute values encoded, undefined and false ones left out, `true` written bare. */
export function htmlElement(name: string, attributes: Readonly<Record<string, string | number | boolean | undefined>>, content = ''): string {
  const written = Object.entries(attributes)
    .filter((entry): entry is [string, string | number | true] => entry[1] !== undefined && entry[1] !== false)
    .map(([key, value]) => (value === true ? ` ${key}` : ` ${key}="${xmlAttribute(visible(String(value)))}"`))
    .join('');
  return VOID_ELEMENTS.has(name) ? `<${name}${written}>` : `<${name}${written}>${content}</${name}>`;
}

/** A link within the page or to the project's docs: only `#…` and https addresses, so no `javascript:` ever. */
export function htmlLink(href: string, content: string, attributes: Readonly<Record<string, string | undefined>> = {}): string {
  if (!href.startsWith('#') && !href.startsWith('https://')) return htmlElement('span', attributes, content);
  return htmlElement('a', { href, ...attributes }, content);
}
