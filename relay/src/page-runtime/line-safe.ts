/**
 * A page's strings, printed so that none can end a line early: every answer
 * puts the page's words inside a fence, and a line break of the page's making
 * would let its words start a line of their own, one that reads like
 * clawd-browser's (a note, a fence's end). Each character some reader takes
 * for a line break is escaped or dropped: the C0 controls (newline, CR…),
 * DEL and the C1 controls (NEL among them), and the Unicode line and
 * paragraph separators. Used where the outline is rendered
 * (snapshot/outline-render.ts) and where page text is written (markdown.ts).
 */

const BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const HAS_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/** JSON leaves these as they are; a quoted string escapes them too. */
const UNESCAPED_BY_JSON = /[\u007f-\u009f\u2028\u2029]/g;
const HAS_UNESCAPED_BY_JSON = /[\u007f-\u009f\u2028\u2029]/;
const escape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A string in double quotes, escaped as JSON is and then some: it reads back with JSON.parse, and holds no line break. */
export function quoted(text: string): string {
  // Tested first: most strings hold none, and a test costs less than a replace (the outline quotes thousands).
  const json = JSON.stringify(text);
  return HAS_UNESCAPED_BY_JSON.test(json) ? json.replace(UNESCAPED_BY_JSON, escape) : json;
}

/** A string printed as it is (a value, an address): a line-breaking character is a space, any other control is dropped. */
export function unbroken(text: string): string {
  return HAS_BREAKING.test(text) ? text.replace(BREAKING, (char) => (/\s|\u0085/.test(char) ? ' ' : '')) : text;
}

/** Text whose lines are the page's own (preformatted text, code): only `\n` breaks a line; CR and the rest go. */
export function pageLines(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(BREAKING, (char) => (char === '\n' ? char : char === '\t' ? char : /\s|\u0085/.test(char) ? ' ' : ''));
}
