/**
 * The snapshot walk's own cost on the longest pages the suites know: Python's
 * documentation of `os` (16,000 elements, nobody here wrote it) and a list of
 * 10,000 rows, each a link, a price and a button (40,000 elements), plus the 5,000
 * element page of tests/fixtures/many.html. Per page, the median of RUNS
 * (after two walks that warm the document): a whole `ai` snapshot as an
 * agent asks for it (walk, stitching, shaping, text), the walk of the main
 * frame alone with its answer crossing the protocol, the walk's own time in
 * the page, and the answer's size.
 *
 * `node --import tsx bench/snapshot-walk.ts` (under the Chromium lock).
 */
import { chromium, type Page } from 'playwright-core';
import { takeAiSnapshot } from '../relay/src/snapshot/ai-snapshot.js';
import { registerSnapshotEngine, walkFrame } from '../relay/src/snapshot/snapshot-engine.js';
import { chromiumPath } from '../tests/harness/chromium.js';
import { startFixtureServer } from '../tests/harness/fixture-server.js';
import { startPythonDocsSite } from '../tests/harness/python-docs.js';
import { startTestSite } from '../tests/harness/test-site.js';

const RUNS = Number(process.env.WALK_RUNS ?? 9);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value: number) => Math.round(value * 10) / 10;

/** 10,000 rows of a list, each a link and a button, as a long feed or search result is. */
function rowsPage(count: number): string {
  const rows = Array.from(
    { length: count },
    (_, i) =>
      `<li class="row" data-id="${i}"><a href="/items/${i}">Item ${i}</a> <span class="price">${(i * 1.25).toFixed(2)}</span> <button>Add</button></li>`,
  );
  return `<!doctype html><html><head><meta charset="utf-8"><title>Rows</title></head><body><main><h1>Rows</h1><ul>${rows.join('')}</ul></main></body></html>`;
}

export interface WalkFigures {
  page: string;
  elements: number;
  snapshotMs: number;
  walkMs: number;
  /** The walk in the page, as it times itself. */
  inPageMs: number;
  answerChars: number;
  outlineChars: number;
}

async function measure(page: Page, name: string): Promise<WalkFigures> {
  const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
  let outline = '';
  for (let i = 0; i < 2; i++) outline = (await takeAiSnapshot(page, {})).text;
  const snapshots: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    outline = (await takeAiSnapshot(page, {})).text;
    snapshots.push(performance.now() - started);
  }
  const walks: number[] = [];
  const inPage: number[] = [];
  let answerChars = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    // A generation of its own each time: the engine answers a repeated one from its cache.
    const answer = await walkFrame(page.mainFrame(), {
      prefix: '',
      firstFrame: 1,
      limit: Number.MAX_SAFE_INTEGER,
      generation: 1_000_000 + i,
      hidden: false,
    } as Parameters<typeof walkFrame>[1]);
    walks.push(performance.now() - started);
    if ('stats' in answer) inPage.push(answer.stats.ms);
    answerChars = JSON.stringify(answer).length;
  }
  return {
    page: name,
    elements,
    snapshotMs: round(median(snapshots)),
    walkMs: round(median(walks)),
    inPageMs: round(median(inPage)),
    answerChars,
    outlineChars: outline.length,
  };
}

export async function measureSnapshotWalk(): Promise<WalkFigures[]> {
  const python = await startPythonDocsSite();
  const fixtures = await startFixtureServer();
  const rows = rowsPage(10_000);
  const list = await startTestSite((_request, response) => void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(rows));
  await registerSnapshotEngine();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const figures: WalkFigures[] = [];
    await page.goto(`${python.url}/library/os.html`);
    figures.push(await measure(page, "Python's docs: os"));
    await page.goto(`${list.url}/rows.html`);
    figures.push(await measure(page, 'a list of 10,000 rows'));
    await page.goto(fixtures.url('many.html'));
    figures.push(await measure(page, 'many.html (1,000 table rows)'));
    return figures;
  } finally {
    await browser.close();
    await list.close();
    await fixtures.close();
    await python.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await measureSnapshotWalk();
  console.log(
    `The snapshot walk (median of ${RUNS}): whole snapshot, main frame's walk with its answer across, the walk in the page; answer and outline chars`,
  );
  for (const row of figures)
    console.log(
      `${row.page} (${row.elements} elements): snapshot ${row.snapshotMs} ms, walk ${row.walkMs} ms, in page ${row.inPageMs} ms, answer ${row.answerChars} chars, outline ${row.outlineChars} chars`,
    );
}
