/**
 * What a person can click, and which outline reaches it: on pages nobody
 * here wrote (widget libraries from npm and Swagger UI, served locally, and
 * a jQuery mail view of ours), every visible element that reacts to a click
 * by Chromium's own account (`DOMSnapshot.captureSnapshot`'s `isClickable`:
 * a click, mouse or pointer listener of its own, an anchor) or is a native
 * control (a link, button, field, select, summary, an editor, an ARIA
 * widget role, a tabindex), counted once where several nest (the innermost:
 * a person clicks the word, not the bar around it). An outline reaches one
 * when it gives a ref to it or to something inside it. Ours (clawd's `ai`
 * snapshot) beside Playwright's `ariaSnapshot({mode: 'ai'})`, on the same
 * page at the same moment, with both outlines' tokens (o200k).
 *
 * `npm run bench:reach`; `REACH_VERBOSE=1` lists what each misses.
 */
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer';
import { chromium, type Page } from 'playwright-core';
import { takeAiSnapshot } from '../relay/src/snapshot/ai-snapshot.js';
import { resolveRef, snapshotsOf } from '../relay/src/snapshot/refs.js';
import { registerSnapshotEngine } from '../relay/src/snapshot/snapshot-engine.js';
import { chromiumPath } from '../tests/harness/chromium.js';
import { startSwaggerUi, startWidgetLibraries, WIDGET_PAGES } from '../tests/harness/package-site.js';
import { refLines } from './snapshot-parity.js';

export interface ReachRow {
  page: string;
  clickable: number;
  ours: number;
  playwright: number;
  oursTokens: number;
  playwrightTokens: number;
  oursMisses: string[];
  playwrightMisses: string[];
}

const CLICKABLE = 'data-reach-clickable';
const OURS = 'data-reach-ours';
const THEIRS = 'data-reach-playwright';

const NATIVE =
  'a[href], button, input:not([type=hidden]), select, textarea, summary, [contenteditable=""], [contenteditable=true], [onclick], [tabindex]:not([tabindex="-1"]), ' +
  '[role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=option], [role=treeitem], [role=textbox], [role=combobox], [role=slider], [role=gridcell]';

/** Marks every element Chromium says responds to a click, in the main frame. */
async function markClickable(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { documents } = await cdp.send('DOMSnapshot.captureSnapshot', { computedStyles: [] });
    const nodes = documents[0].nodes;
    const clickable = nodes.isClickable?.index ?? [];
    for (const index of clickable) {
      const backendNodeId = nodes.backendNodeId![index];
      const { object } = await cdp.send('DOM.resolveNode', { backendNodeId }).catch(() => ({ object: { objectId: undefined } }));
      if (!object.objectId) continue;
      await cdp
        .send('Runtime.callFunctionOn', {
          objectId: object.objectId,
          functionDeclaration: `function (mark) { if (this.nodeType === 1) this.setAttribute(mark, ''); }`,
          arguments: [{ value: CLICKABLE }],
        })
        .catch(() => {});
    }
  } finally {
    await cdp.detach();
  }
  // Native controls too, in open shadow roots as well. (In-page code as text: tsx names inner functions with a helper the page lacks.)
  await page.evaluate(`(() => {
    const visit = (root) => {
      for (const el of root.querySelectorAll(${JSON.stringify(NATIVE)})) el.setAttribute(${JSON.stringify(CLICKABLE)}, '');
      for (const el of root.querySelectorAll('*')) if (el.shadowRoot) visit(el.shadowRoot);
    };
    visit(document);
  })()`);
}

/** In the page: the innermost visible marked elements, and whether each holds (or is) an element of each outline's refs. */
const TALLY = `(([clickable, ours, theirs]) => {
  const all = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.hasAttribute(clickable)) all.push(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  const search = (root, mark) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.hasAttribute(mark)) return true;
      if (el.shadowRoot && search(el.shadowRoot, mark)) return true;
    }
    return false;
  };
  const inside = (outer, mark) => outer.hasAttribute(mark) || search(outer, mark) || (!!outer.shadowRoot && search(outer.shadowRoot, mark));
  const visible = (el) => {
    if (el === document.body || el === document.documentElement) return false;
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return false;
    const box = el.getBoundingClientRect();
    return box.width > 1 && box.height > 1;
  };
  const shown = all.filter(visible);
  // The innermost: one that holds another shown clickable is the bar around the controls.
  const innermost = shown.filter((el) => !shown.some((other) => other !== el && el.contains(other)));
  return innermost.map((el) => ({
    what: '<' + el.localName + (el.id ? '#' + el.id : '') + (el.classList.length ? '.' + [...el.classList].slice(0, 2).join('.') : '') + '> ' + JSON.stringify((el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 40)),
    ours: inside(el, ours),
    theirs: inside(el, theirs),
  }));
})`;

async function measurePage(page: Page, name: string): Promise<ReachRow> {
  const playwright = await page.locator('body').ariaSnapshot({ mode: 'ai' });
  const ours = await takeAiSnapshot(page, {});
  const tab = snapshotsOf(page);
  for (const { ref } of refLines(ours.text)) {
    if (ref.startsWith('f')) continue;
    const handle = await resolveRef(tab, ref).catch(() => undefined);
    await handle?.evaluate((element, mark) => element.setAttribute(mark, ''), OURS).catch(() => {});
  }
  for (const { ref } of refLines(playwright)) {
    if (ref.startsWith('f')) continue;
    await page
      .locator(`aria-ref=${ref}`)
      .evaluate((element, mark) => element.setAttribute(mark, ''), THEIRS, { timeout: 2_000 })
      .catch((e) => process.env.REACH_DEBUG && console.log(String(e).slice(0, 200)));
  }
  if (process.env.REACH_DEBUG)
    console.log(
      'marked pw',
      await page.evaluate(`document.querySelectorAll('[${THEIRS}]').length`),
      'of',
      refLines(playwright).length,
      'ours',
      await page.evaluate(`document.querySelectorAll('[${OURS}]').length`),
    );
  await markClickable(page);
  const counted = (await page.evaluate(`${TALLY}(${JSON.stringify([CLICKABLE, OURS, THEIRS])})`)) as Array<{ what: string; ours: boolean; theirs: boolean }>;
  await page.evaluate(`(() => {
    const clear = (root) => {
      for (const el of root.querySelectorAll('*')) {
        for (const mark of ${JSON.stringify([CLICKABLE, OURS, THEIRS])}) el.removeAttribute(mark);
        if (el.shadowRoot) clear(el.shadowRoot);
      }
    };
    clear(document);
  })()`);
  return {
    page: name,
    clickable: counted.length,
    ours: counted.filter((row) => row.ours).length,
    playwright: counted.filter((row) => row.theirs).length,
    oursTokens: encode(ours.text).length,
    playwrightTokens: encode(playwright).length,
    oursMisses: counted.filter((row) => !row.ours).map((row) => row.what),
    playwrightMisses: counted.filter((row) => !row.theirs).map((row) => row.what),
  };
}

export async function measureReach(): Promise<ReachRow[]> {
  const swagger = await startSwaggerUi();
  const widgets = await startWidgetLibraries();
  await registerSnapshotEngine();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const rows: ReachRow[] = [];
    await page.goto(swagger.url('/index.html'));
    await page.waitForSelector('.opblock');
    for (const id of ['pets-listPets', 'pets-addPet']) await page.click(`#operations-${id} .opblock-summary-control`);
    await page.waitForSelector('#operations-pets-addPet.is-open');
    rows.push(await measurePage(page, 'Swagger UI (swagger-ui-dist), 2 operations open'));
    for (const widgetPage of [...WIDGET_PAGES, { file: 'mail.html', title: 'a jQuery mail view (ours, with jQuery)' }]) {
      // A page of its own for each: Playwright's aria-ref finds nothing after a tab's first document.
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(widgets.url(`/${widgetPage.file}`));
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true, undefined, { timeout: 30_000 });
      await ('open' in widgetPage ? widgetPage.open?.(page) : undefined);
      rows.push(await measurePage(page, widgetPage.title));
      await page.close();
    }
    return rows;
  } finally {
    await browser.close();
    await swagger.close();
    await widgets.close();
  }
}

export function reportReach(rows: ReachRow[]): void {
  console.log(
    '\nwhat a person can click (innermost visible elements with a click listener, or native controls) that each outline gives a ref to, itself or inside it',
  );
  console.log(`${'page'.padEnd(52)} ${'clickable'.padStart(9)} ${'ours'.padStart(6)} ${'pw'.padStart(6)} ${'tokens ours/pw'.padStart(16)}`);
  for (const row of rows) {
    console.log(
      `${row.page.padEnd(52)} ${String(row.clickable).padStart(9)} ${String(row.ours).padStart(6)} ${String(row.playwright).padStart(6)} ${`${row.oursTokens}/${row.playwrightTokens}`.padStart(16)}`,
    );
    if (process.env.REACH_VERBOSE === '1') {
      for (const miss of row.oursMisses) console.log(`    ours misses ${miss}`);
      for (const miss of row.playwrightMisses) console.log(`    pw misses   ${miss}`);
    }
  }
  const sum = (pick: (row: ReachRow) => number) => rows.reduce((total, row) => total + pick(row), 0);
  console.log(
    `${'all'.padEnd(52)} ${String(sum((r) => r.clickable)).padStart(9)} ${String(sum((r) => r.ours)).padStart(6)} ${String(sum((r) => r.playwright)).padStart(6)} ${`${(sum((r) => r.oursTokens) / sum((r) => r.playwrightTokens)).toFixed(2)}×`.padStart(16)}`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  reportReach(await measureReach());
}
