// Text inside GitHub-flavoured markdown that the text cannot break out of: one table cell, one code span.

/** A table cell: one line, no pipe that would split it, no HTML. */
export function tableCell(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** Inline code that no backtick in the text can end. */
export function code(text: string): string {
  const clean = tableCell(text).replace(/`/g, "'");
  return `\`${clean}\``;
}
