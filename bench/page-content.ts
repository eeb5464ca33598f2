/**
 * Page content is data (spec §20), in figures, on pages nobody here wrote
 * (tests/harness/real-pages.ts: TodoMVC apps, Python's docs, the widget
 * libraries, Swagger UI, reveal.js): per page, the outline's and the page
 * text's tokens (gpt-tokenizer, o200k) without and with the text a person
 * cannot see (the `hidden=true` outline, its marks and note taken out), the
 * blocks left out, the walk's time (median of 5), and what the fence costs
 * an MCP answer of that outline. Run alone with `npm run bench:page-content`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer';
import { chromium } from 'playwright-core';
import { chooseFence, fencedAfterNotes } from '../relay/src/api/page-content.js';
import { takeAiSnapshot } from '../relay/src/snapshot/ai-snapshot.js';
import { takePageText } from '../relay/src/snapshot/page-text.js';
import { snapshotsOf } from '../relay/src/snapshot/refs.js';
import { registerSnapshotEngine } from '../relay/src/snapshot/snapshot-engine.js';
import { chromiumPath } from '../tests/harness/chromium.js';
import { startRealPages } from '../tests/harness/real-pages.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 5;

export interface PageContentFigures {
  page: string;
  outline: { tokens: number; withHidden: number; blocks: number; ms: number };
  text: { tokens: number; withHidden: number; blocks: number };
  /** Tokens the fence adds to browser_snapshot's answer of this page. */
  fence: number;
}

const tokens = (text: string) => encode(text).length;
/** The `hidden=true` text with its marks and note taken out: what an answer held before the rules. */
const unmarked = (text: string) =>
  text
    .replace(/ ?\[hidden=[a-z-]+\] ?/g, (mark) => (mark.startsWith(' ') && mark.endsWith(' ') ? ' ' : ''))
    .split('\n')
    .filter((line) => !line.startsWith('[hidden text'))
    .join('\n');

export async function measurePageContent(): Promise<PageContentFigures[]> {
  const { pages, close } = await startRealPages();
  await registerSnapshotEngine();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  const figures: PageContentFigures[] = [];
  try {
    for (const real of pages) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await real.load(page);
      const shown = await takeAiSnapshot(page, { hidden: true });
      const times: number[] = [];
      let seen = await takeAiSnapshot(page, {});
      for (let i = 0; i < RUNS; i++) {
        const start = performance.now();
        seen = await takeAiSnapshot(page, {});
        times.push(performance.now() - start);
      }
      const text = await takePageText(snapshotsOf(page), page, { maxChars: 1_000_000 });
      const textShown = await takePageText(snapshotsOf(page), page, { maxChars: 1_000_000, hidden: true });
      const header = `${await page.title()} — ${page.url()}`;
      const bare = `${header}\n${seen.text}`;
      figures.push({
        page: real.name,
        outline: {
          tokens: tokens(seen.text),
          withHidden: tokens(unmarked(shown.text)),
          blocks: seen.hidden ?? 0,
          ms: Math.round([...times].sort((a, b) => a - b)[Math.floor(RUNS / 2)] * 10) / 10,
        },
        text: { tokens: tokens(text.markdown), withHidden: tokens(unmarked(textShown.markdown)), blocks: text.hidden ?? 0 },
        fence: tokens(fencedAfterNotes(chooseFence([bare]), header, seen.text, seen.hidden ? 1 : 0)) - tokens(bare),
      });
      await page.close();
    }
    return figures;
  } finally {
    await browser.close();
    await close();
  }
}

export function reportPageContent(figures: PageContentFigures[]): void {
  console.log(
    "\nPage content is data: o200k tokens of the outline and the page text, without / with the text a person cannot see; blocks left out; walk ms (median of 5); the fence's cost",
  );
  console.log(`${'page'.padEnd(40)} ${'outline'.padStart(16)} ${'blocks'.padStart(7)} ${'ms'.padStart(7)} ${'page text'.padStart(16)} ${'fence'.padStart(6)}`);
  for (const f of figures) {
    console.log(
      `${f.page.padEnd(40)} ${`${f.outline.tokens} / ${f.outline.withHidden}`.padStart(16)} ${String(f.outline.blocks).padStart(7)} ${String(f.outline.ms).padStart(7)} ${`${f.text.tokens} / ${f.text.withHidden}`.padStart(16)} ${String(f.fence).padStart(6)}`,
    );
  }
  const grew = figures.filter((f) => f.outline.tokens > f.outline.withHidden || f.text.tokens > f.text.withHidden);
  console.log(grew.length ? `grew: ${grew.map((f) => f.page).join(', ')}` : 'no outline or page text grew');
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/page-content.json'), `${JSON.stringify(figures, null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportPageContent(await measurePageContent());
}
