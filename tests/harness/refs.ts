/**
 * The ref on the first snapshot line that matches: a RegExp tested against
 * the whole line, or a string the line starts with after `- ` (role and name
 * as printed, e.g. 'button "Submit"'; a diff's + or ~ mark is skipped). Throws with the outline when none has
 * a ref, so a failing test shows what the snapshot said.
 */
export function refOf(text: string, match: RegExp | string): string {
  // A diff's lines start with a mark (+ added, ~ changed) before the indent.
  const matches = (line: string) => (typeof match === 'string' ? line.replace(/^[+~]/, '').trimStart().startsWith(`- ${match}`) : match.test(line));
  // A diff's removed lines (`- ` then the indent) name refs that are gone.
  const removed = (line: string) => /^- (\s|- )/.test(line);
  const line = text.split('\n').find((candidate) => !removed(candidate) && matches(candidate) && /\[ref=/.test(candidate));
  const ref = line && /\[ref=([a-z0-9]+)\]/.exec(line)?.[1];
  if (!ref) throw new Error(`No snapshot line matching ${String(match)} has a ref in:\n${text.slice(0, 3000)}`);
  return ref;
}
