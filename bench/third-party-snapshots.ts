/**
 * The snapshot on pages nobody here wrote (Swagger UI, reveal.js's demo deck,
 * Select2, Quill and TinyMCE on a host page),
 * against Playwright's own AI snapshot (`locator('body').ariaSnapshot({mode:
 * 'ai'})`) of the same page in the same Chromium: tokens (gpt-tokenizer,
 * o200k), refs handed out, and time (median of 7). Run alone with
 * `npm run bench:pages`; `npm run bench` runs it too.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer';
import { chromium, type Page } from 'playwright-core';
import { takeAiSnapshot } from '../relay/src/snapshot/ai-snapshot.js';
import { registerSnapshotEngine } from '../relay/src/snapshot/snapshot-engine.js';
import { chromiumPath } from '../tests/harness/chromium.js';
import { hostPage, startPackageSite, startSwaggerUi } from '../tests/harness/package-site.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 7;

export interface PageSnapshotFigures {
  page: string;
  clawd: { tokens: number; refs: number; ms: number };
  clawdInteractive: { tokens: number; refs: number; ms: number };
  playwrightAi: { tokens: number; refs: number; ms: number };
}

const refsIn = (text: string) => (text.match(/\[ref=/g) ?? []).length;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(take: () => Promise<string>): Promise<{ tokens: number; refs: number; ms: number }> {
  let text = '';
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    text = await take();
    times.push(performance.now() - start);
  }
  return { tokens: encode(text).length, refs: refsIn(text), ms: Math.round(median(times) * 10) / 10 };
}

async function measurePage(page: Page, name: string): Promise<PageSnapshotFigures> {
  return {
    page: name,
    clawd: await timed(async () => (await takeAiSnapshot(page, {})).text),
    clawdInteractive: await timed(async () => (await takeAiSnapshot(page, { interactive: true })).text),
    playwrightAi: await timed(() => page.locator('body').ariaSnapshot({ mode: 'ai' })),
  };
}

export async function measureThirdPartySnapshots(): Promise<PageSnapshotFigures[]> {
  const swagger = await startSwaggerUi();
  const reveal = await startPackageSite('reveal.js');
  const widgets = await startPackageSite(
    { '/jquery/': 'jquery', '/select2/': 'select2', '/quill/': 'quill', '/tinymce/': 'tinymce' },
    { files: { '/widgets.html': hostPage('widgets.html') } },
  );
  await registerSnapshotEngine();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const figures: PageSnapshotFigures[] = [];
    await page.goto(swagger.url('/index.html'));
    await page.waitForSelector('.opblock');
    figures.push(await measurePage(page, 'Swagger UI, 5 operations'));
    for (const id of ['pets-listPets', 'pets-addPet', 'pets-showPetById', 'pets-deletePet']) await page.click(`#operations-${id} .opblock-summary-control`);
    await page.waitForSelector('#operations-pets-deletePet.is-open');
    figures.push(await measurePage(page, 'Swagger UI, 4 operations open'));
    await page.goto(reveal.url('/demo.html'));
    await page.waitForFunction(() => (window as unknown as { Reveal?: { isReady(): boolean } }).Reveal?.isReady());
    figures.push(await measurePage(page, 'reveal.js demo, first slide'));
    await page.goto(widgets.url('/widgets.html'));
    await page.waitForFunction(() => (window as unknown as { mceReady?: boolean }).mceReady === true);
    figures.push(await measurePage(page, 'Select2, Quill and TinyMCE'));
    return figures;
  } finally {
    await browser.close();
    await swagger.close();
    await reveal.close();
    await widgets.close();
  }
}

export function reportThirdPartySnapshots(figures: PageSnapshotFigures[]): void {
  console.log('\nSnapshots of pages nobody here wrote: clawd ai snapshot vs Playwright ariaSnapshot({mode: "ai"}), o200k tokens / refs / ms (median of 7)');
  console.log(`${'page'.padEnd(32)} ${'clawd'.padStart(18)} ${'clawd interactive'.padStart(20)} ${'Playwright ai'.padStart(20)}   tokens clawd/Playwright`);
  const cell = (f: { tokens: number; refs: number; ms: number }) => `${f.tokens} / ${f.refs} / ${f.ms}`;
  for (const f of figures) {
    console.log(
      `${f.page.padEnd(32)} ${cell(f.clawd).padStart(18)} ${cell(f.clawdInteractive).padStart(20)} ${cell(f.playwrightAi).padStart(20)}   ${(f.clawd.tokens / f.playwrightAi.tokens).toFixed(2)}`,
    );
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/third-party-snapshots.json'), `${JSON.stringify(figures, null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportThirdPartySnapshots(await measureThirdPartySnapshots());
}
