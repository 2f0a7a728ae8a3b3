// The one XML encoder, for every XML format (JUnit, SVG): text from a manifest or a cluster becomes
// character data and nothing else. Markup characters are escaped, never wrapped in a CDATA section
// (a name holding `]]>` would end it); characters XML 1.0 cannot hold at all (its Char production:
// most C0 controls, lone surrogates, U+FFFE and U+FFFF) become U+FFFD, so the document always parses.

/** Every character outside XML 1.0's Char production (https://www.w3.org/TR/xml/#charsets). */
const NOT_XML_CHARACTERS = /[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

const CONTENT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...CONTENT_ESCAPES,
  '"': '&quot;',
  "'": '&apos;',
  // In an attribute a parser turns a raw tab or line end into a space: as references they survive.
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/** Text as an element's character data. */
export function xmlText(text: string): string {
  return text.replace(NOT_XML_CHARACTERS, '\ufffd').replace(/[&<>]/g, (character) => CONTENT_ESCAPES[character]!);
}

/** Text as an attribute's value (inside double quotes). */
export function xmlAttribute(text: string): string {
  return text.replace(NOT_XML_CHARACTERS, '\ufffd').replace(/[&<>"'\t\n\r]/g, (character) => ATTRIBUTE_ESCAPES[character]!);
}

/** `<name a="…">content</name>`, or `<name a="…"/>` without content; attribute values encoded, undefined ones left out. */
export function xmlElement(name: string, attributes: Readonly<Record<string, string | number | undefined>>, content?: string): string {
  const written = Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${xmlAttribute(String(value))}"`)
    .join('');
  return content === undefined || content === '' ? `<${name}${written}/>` : `<${name}${written}>${content}</${name}>`;
}
