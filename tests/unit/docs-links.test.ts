import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The user documents hold together: every relative link (and its #anchor)
 * reaches a file and a heading, and none of them speaks of history (issue
 * numbers belong in the tracker, changes in CHANGELOG.md).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = [
  'README.md',
  'CHANGELOG.md',
  'host-manifest/README.md',
  'skills/clawd-browser/SKILL.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes; repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** Markdown links outside code: [text](target). */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

describe('the user documents', () => {
  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const doc of DOCS) {
      const file = join(ROOT, doc);
      for (const target of linksOf(file)) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // http:, mailto: …
        checked++;
        const [path, anchor] = target.split('#');
        const destination = path ? resolve(dirname(file), path) : file;
        if (!existsSync(destination)) broken.push(`${doc}: ${target} (no file ${relative(ROOT, destination)})`);
        else if (anchor !== undefined && destination.endsWith('.md') && !anchorsOf(destination).has(anchor)) broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('speak to users, not of history: no issue numbers, and the README stays short', () => {
    for (const doc of DOCS.filter((doc) => doc !== 'CHANGELOG.md')) expect(readFileSync(join(ROOT, doc), 'utf8'), doc).not.toMatch(/\bissues? #?\d+/i);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });
});
