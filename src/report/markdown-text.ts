// The one Markdown encoder, for every Markdown output (the lint report, the timeline, hover text):
// text from a manifest or a cluster renders as the literal text it is, on one line — never a link, an
// image (a beacon), HTML, emphasis, a table break or an @-mention that notifies a team.

/** Characters that would end the line (or the table row) the text is on, and other controls. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/**
 * What can start Markdown of its own in running text: emphasis, code, links and images (their
 * brackets), raw HTML and entities, table pipes, strikethrough, and backslashes. A backslash makes
 * each literal (CommonMark §2.4); the rest of the punctuation cannot begin anything mid-line.
 */
const MARKUP = /[\\`*_[\]<>!|~&]/g;
/** GitHub turns @name and #123 in rendered text into mentions and links: a zero-width space after the sign stops it. */
const ZERO_WIDTH_SPACE = '\u200b';

/** Text as literal Markdown, fit for a paragraph or a table cell: no link, image, HTML, emphasis, mention or autolink. */
export function markdownText(text: string): string {
  return (
    text
      .replace(CONTROLS, ' ')
      .replace(MARKUP, (character) => `\\${character}`)
      .replace(/[@#]/g, (character) => `${character}${ZERO_WIDTH_SPACE}`)
      // GFM links bare URLs and www. names by themselves (its autolink extension): a backslash breaks the pattern.
      .replace(/:\/\//g, '\\://')
      .replace(/\bwww\./gi, (www) => `${www.slice(0, 3)}\\.`)
  );
}

/** An alias kept for table cells: every cell is literal text. */
export const tableCell = markdownText;

/** Inline code of the text as it is: a fence longer than any run of backticks in it, pipes escaped for tables (GFM §6.1). */
export function code(text: string): string {
  const clean = text.replace(CONTROLS, ' ').replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...clean.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  // A space on each side when the text starts or ends with a backtick (or is all spaces): CommonMark strips one each side.
  const padded = longest > 0 || /^ +$/.test(clean) || clean === '' ? ` ${clean} ` : clean;
  return `${fence}${padded}${fence}`;
}

/**
 * What would be markup in raw HTML or, where a renderer reads Markdown inside it (GitHub does in a
 * <summary>), in Markdown: written as numeric references, which both read as the literal character
 * and neither as markup (CommonMark §2.5). `:` and `.` break autolinks (`https://…`, `www.…`).
 */
const HTML_OR_MARKDOWN = /[&<>"'\\`*_[\]()!|~:.=]/g;

/** Text inside raw HTML (a <summary> line): no element, entity, emphasis, code, link, autolink or mention, read as HTML or as Markdown. */
export function htmlText(text: string): string {
  return (
    text
      .replace(CONTROLS, ' ')
      // Mentions first: the references written next hold a `#` of their own.
      .replace(/[@#]/g, (character) => `${character}${ZERO_WIDTH_SPACE}`)
      .replace(HTML_OR_MARKDOWN, (character) => `&#${character.codePointAt(0)};`)
  );
}
