/**
 * Snapshot parity (issue 23): on pages nobody here wrote (widget libraries
 * from npm, served locally), every element Playwright's AI snapshot
 * (`ariaSnapshot({mode: 'ai'})`) gives a ref to, with a role an agent acts
 * on, must have a handle in ours, under the same name; and ours must stay
 * lean. For each such element this reports whether our snapshot gives the
 * same element a ref (both refs resolved to elements and compared), whether
 * the names agree, and the tokens of both outlines (gpt-tokenizer, o200k).
 * Where the two names differ, Chrome's own accessibility tree (CDP
 * Accessibility.getPartialAXTree) says which is the element's name: "name
 * (AX)" counts ours right when it is Chrome's. Elements Playwright lists
 * although they are aria-hidden are left out: they are not in the tree.
 *
 * `npm run bench:parity`; `PARITY_VERBOSE=1` lists every miss.
 */
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer';
import { chromium, type Page } from 'playwright-core';
import { takeAiSnapshot } from '../relay/src/snapshot/ai-snapshot.js';
import { resolveRef, snapshotsOf } from '../relay/src/snapshot/refs.js';
import { registerSnapshotEngine } from '../relay/src/snapshot/snapshot-engine.js';
import { chromiumPath } from '../tests/harness/chromium.js';
import { startSwaggerUi, startWidgetLibraries, WIDGET_PAGES } from '../tests/harness/package-site.js';

/** Roles an agent acts on, or picks an item of. */
export const ACTIONABLE_ROLES = new Set([
  'button',
  'link',
  'checkbox',
  'radio',
  'switch',
  'textbox',
  'searchbox',
  'combobox',
  'slider',
  'spinbutton',
  'option',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'gridcell',
  'row',
  'listitem',
  'treeitem',
]);

interface Line {
  role: string;
  name: string;
  ref: string;
  /** Playwright lists aria-hidden elements too (a library's hidden native <select>); the accessibility tree does not. */
  ariaHidden: boolean;
}

const LINE = /^\s*- ([\w-]+)(?: "((?:[^"\\]|\\.)*)")?[^\n]*?\[ref=((?:f\d+)?e\d+)\]/;

/** The ref'd lines of an outline (ours and Playwright's share the shape `- role "name" … [ref=e5]`). */
export function refLines(text: string): Line[] {
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const match = LINE.exec(raw);
    if (!match) continue;
    let name = match[2] ?? '';
    try {
      name = JSON.parse(`"${name}"`);
    } catch {
      // Left as written.
    }
    lines.push({ role: match[1], name, ref: match[3], ariaHidden: raw.includes('[aria-hidden]') });
  }
  return lines;
}

const normal = (name: string) => name.replace(/\s+/g, ' ').trim();

/** Ours clips long names with '…'; a clipped name that starts the same is the same name. */
export function sameName(ours: string, theirs: string): boolean {
  const a = normal(ours);
  const b = normal(theirs);
  if (a === b) return true;
  return a.endsWith('…') && b.startsWith(a.slice(0, -1).trimEnd());
}

export interface ParityRow {
  page: string;
  /** Elements Playwright gives a ref with an actionable role. */
  elements: number;
  handled: number;
  sameName: number;
  /** Same as Playwright's, or, where the two differ, the name in Chrome's accessibility tree. */
  axName: number;
  oursTokens: number;
  playwrightTokens: number;
  misses: string[];
}

const MARK = 'data-parity-ref';
const AX_MARK = 'data-parity-ax';

/** The element's name in Chrome's accessibility tree (main frame; undefined when Chrome cannot say). */
async function chromeName(page: Page, ref: string): Promise<string | undefined> {
  const marked = await page
    .locator(`aria-ref=${ref}`)
    .evaluate((element, attribute) => element.setAttribute(attribute, ''), AX_MARK, { timeout: 2_000 })
    .then(
      () => true,
      () => false,
    );
  if (!marked) return undefined;
  const cdp = await page.context().newCDPSession(page);
  try {
    const found = await cdp.send('Runtime.evaluate', {
      expression: `(() => { const find = (root) => { const hit = root.querySelector('[${AX_MARK}]'); if (hit) return hit; for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const inner = find(el.shadowRoot); if (inner) return inner; } return null; }; return find(document); })()`,
    });
    if (!found.result.objectId) return undefined;
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { objectId: found.result.objectId, fetchRelatives: false });
    const value = nodes[0]?.name?.value;
    return typeof value === 'string' ? value : undefined;
  } finally {
    await page
      .locator(`aria-ref=${ref}`)
      .evaluate((element, attribute) => element.removeAttribute(attribute), AX_MARK)
      .catch(() => {});
    await cdp.detach();
  }
}

async function comparePage(page: Page, name: string): Promise<ParityRow> {
  const playwright = await page.locator('body').ariaSnapshot({ mode: 'ai' });
  const ours = await takeAiSnapshot(page, {});
  const theirs = refLines(playwright).filter((line) => ACTIONABLE_ROLES.has(line.role) && !line.ariaHidden);
  const oursByRef = new Map(refLines(ours.text).map((line) => [line.ref, line]));
  // Our refs written onto their elements (after both snapshots, so neither saw the marks).
  const tab = snapshotsOf(page);
  for (const ref of oursByRef.keys()) {
    const handle = await resolveRef(tab, ref).catch(() => undefined);
    await handle?.evaluate((element, [mark, value]) => element.setAttribute(mark, value), [MARK, ref] as const).catch(() => {});
  }
  const row: ParityRow = {
    page: name,
    elements: theirs.length,
    handled: 0,
    sameName: 0,
    axName: 0,
    oursTokens: encode(ours.text).length,
    playwrightTokens: encode(playwright).length,
    misses: [],
  };
  for (const line of theirs) {
    const mark = await page
      .locator(`aria-ref=${line.ref}`)
      .evaluate((element, attribute) => element.getAttribute(attribute), MARK, { timeout: 2_000 })
      .catch(() => null);
    const mine = mark ? oursByRef.get(mark) : undefined;
    if (!mine) {
      row.misses.push(`no ref: ${line.role} ${JSON.stringify(line.name)}`);
      continue;
    }
    row.handled++;
    if (sameName(mine.name, line.name)) {
      row.sameName++;
      row.axName++;
      continue;
    }
    const chrome = await chromeName(page, line.ref);
    const oursIsChrome = chrome !== undefined && sameName(mine.name, chrome);
    if (oursIsChrome) row.axName++;
    row.misses.push(
      `name: ${line.role} ${JSON.stringify(line.name)} is ${mine.role} ${JSON.stringify(mine.name)} in ours; Chrome's accessibility tree: ${chrome === undefined ? '(not found)' : JSON.stringify(chrome)}${oursIsChrome ? ' (ours)' : ''}`,
    );
  }
  await page.evaluate((attribute) => document.querySelectorAll(`[${attribute}]`).forEach((element) => element.removeAttribute(attribute)), MARK);
  return row;
}

export async function measureParity(): Promise<ParityRow[]> {
  const swagger = await startSwaggerUi();
  const widgets = await startWidgetLibraries();
  await registerSnapshotEngine();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const rows: ParityRow[] = [];
    await page.goto(swagger.url('/index.html'));
    await page.waitForSelector('.opblock');
    for (const id of ['pets-listPets', 'pets-addPet']) await page.click(`#operations-${id} .opblock-summary-control`);
    await page.waitForSelector('#operations-pets-addPet.is-open');
    rows.push(await comparePage(page, 'Swagger UI (swagger-ui-dist), 2 operations open'));
    for (const widgetPage of WIDGET_PAGES) {
      await page.goto(widgets.url(`/${widgetPage.file}`));
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true, undefined, { timeout: 30_000 });
      await widgetPage.open?.(page);
      rows.push(await comparePage(page, widgetPage.title));
    }
    return rows;
  } finally {
    await browser.close();
    await swagger.close();
    await widgets.close();
  }
}

export function reportParity(rows: ParityRow[]): void {
  const pct = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)}%` : '-');
  console.log("\nsnapshot parity with Playwright's AI snapshot: elements it gives a ref with an actionable role");
  console.log(
    `${'page'.padEnd(52)} ${'elements'.padStart(8)} ${'handle'.padStart(7)} ${'name'.padStart(7)} ${'name(AX)'.padStart(8)} ${'tokens ours/pw'.padStart(16)}`,
  );
  for (const row of rows) {
    console.log(
      `${row.page.padEnd(52)} ${String(row.elements).padStart(8)} ${pct(row.handled, row.elements).padStart(7)} ${pct(row.sameName, row.elements).padStart(7)} ${pct(row.axName, row.elements).padStart(8)} ${`${row.oursTokens}/${row.playwrightTokens}`.padStart(16)}`,
    );
    if (process.env.PARITY_VERBOSE === '1') for (const miss of row.misses) console.log(`    ${miss}`);
  }
  const sum = (pick: (row: ParityRow) => number) => rows.reduce((total, row) => total + pick(row), 0);
  const elements = sum((row) => row.elements);
  console.log(
    `${'all'.padEnd(52)} ${String(elements).padStart(8)} ${pct(
      sum((row) => row.handled),
      elements,
    ).padStart(7)} ${pct(
      sum((row) => row.sameName),
      elements,
    ).padStart(7)} ${pct(
      sum((row) => row.axName),
      elements,
    ).padStart(8)} ${`${(sum((row) => row.oursTokens) / sum((row) => row.playwrightTokens)).toFixed(2)}×`.padStart(16)}`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportParity(await measureParity());
}
