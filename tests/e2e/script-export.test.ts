import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath } from '../harness/chromium.js';
import { petsApi, startPackageSite, startSwaggerUi } from '../harness/package-site.js';
import { refOf } from '../harness/refs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * A task recorded as an agent does it, on pages nobody here wrote (Swagger
 * UI: open an operation, try it out, fill its parameter, execute; reveal.js:
 * next slide by its control, then by the keyboard), exported with
 * `GET /script` and run again with Playwright's own test runner against the
 * same pages: it passes, and the API sees the same call again.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

let env: ControlEnv;
let swagger: Awaited<ReturnType<typeof startSwaggerUi>>;
let reveal: Awaited<ReturnType<typeof startPackageSite>>;
const apiCalls: string[] = [];
let dir: string;

beforeAll(async () => {
  env = await startControlEnv();
  swagger = await startSwaggerUi(petsApi(apiCalls));
  reveal = await startPackageSite('reveal.js');
  dir = mkdtempSync(join(tmpdir(), 'clawd-script-'));
}, 90_000);
afterAll(async () => {
  await env?.close();
  await swagger?.close();
  await reveal?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a test file with @playwright/test on this machine's Chromium; resolves with its output, rejects when it fails. */
async function playwrightTest(script: string): Promise<string> {
  writeFileSync(join(dir, 'recorded.spec.ts'), script);
  writeFileSync(
    join(dir, 'playwright.config.js'),
    `module.exports = { testDir: '.', workers: 1, reporter: 'line', timeout: 60000, use: { headless: true, launchOptions: { executablePath: ${JSON.stringify(chromiumPath())}, args: ['--no-sandbox', '--disable-gpu'] } } };\n`,
  );
  const { stdout } = await run(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '--config', join(dir, 'playwright.config.js')], {
    cwd: dir,
    // The script imports @playwright/test as its users' would: found through NODE_PATH here.
    env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules'), CI: '1' },
    timeout: 120_000,
  });
  return stdout;
}

describe('GET /script', () => {
  it('exports a task done by refs on Swagger UI and reveal.js as a Playwright test that passes against the same pages', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(swagger.url('/index.html'));
    await client.wait({ text: 'Find a pet by id', targetId });
    let { text } = await client.snapshot({ targetId, interactive: true });
    await client.click(refOf(text, 'button "GET /pets/{petId} Find a pet by id"'), { targetId });
    await client.wait({ selector: '#operations-pets-showPetById .try-out__btn', targetId });
    ({ text } = await client.snapshot({ targetId, selector: '#operations-pets-showPetById' }));
    await client.click(refOf(text, 'button "Try it out"'), { targetId });
    ({ text } = await client.snapshot({ targetId, selector: '#operations-pets-showPetById' }));
    await client.fill([{ ref: refOf(text, /textbox "petId"/), value: '42' }], { targetId });
    ({ text } = await client.snapshot({ targetId, selector: '#operations-pets-showPetById' }));
    await client.click(refOf(text, 'button "Execute"'), { targetId });
    await client.wait({ text: 'Rex the 42th', targetId });
    expect(apiCalls).toEqual(['GET /api/pets/42']);

    const slides = await client.openTab(reveal.url('/demo.html'));
    await client.wait({ text: 'The HTML Presentation Framework', targetId: slides.targetId });
    ({ text } = await client.snapshot({ targetId: slides.targetId }));
    await client.click(refOf(text, 'button "next slide"'), { targetId: slides.targetId });
    await client.wait({ text: 'Hello There', targetId: slides.targetId });
    await client.press('ArrowRight', { targetId: slides.targetId });
    await client.wait({ text: 'Vertical Slides', targetId: slides.targetId });

    const exported = await client.script({ title: 'pets and slides' });
    expect(exported).toMatchObject({ language: 'typescript', runner: '@playwright/test', notes: [] });
    const { script } = exported;
    // Elements are found by role and name, as they were when the agent acted.
    expect(script).toContain(`await page.goto(${JSON.stringify(swagger.url('/index.html'))});`);
    expect(script).toContain(`await page.getByRole("button", { name: "Execute", exact: true }).click();`);
    expect(script).toContain(`await page.getByRole("textbox", { name: "petId", exact: true }).fill("42");`);
    expect(script).toContain('await expect(page.getByText("Rex the 42th").first()).toBeVisible();');
    expect(script).toContain('const page2 = await page.context().newPage();');
    expect(script).toContain('await page2.keyboard.press("ArrowRight");');
    expect(script).not.toContain('a CSS path');

    // One tab's steps alone.
    const one = await client.script({ targetId: slides.targetId });
    expect(one.script).not.toContain('Execute');
    expect(one.script).toContain('await page.getByRole("button", { name: "next slide", exact: true }).click();');

    // The CLI writes the same test to a file.
    const file = join(dir, 'from-cli.ts');
    await run(process.execPath, [join(ROOT, 'bin/clawd-browser.js'), '--profile', 'clawd', 'script', '--title', 'pets and slides', '--out', file], {
      env: { ...process.env, CLAWD_HOME: env.home },
    });
    const fromCli = readFileSync(file, 'utf8');
    const withoutHeader = (text: string) => text.replace(/^\/\/ Recorded by .*$/m, '');
    expect(withoutHeader(fromCli)).toBe(withoutHeader(script));

    apiCalls.length = 0;
    const output = await playwrightTest(script);
    expect(output).toMatch(/1 passed/);
    expect(apiCalls).toEqual(['GET /api/pets/42']);
  }, 180_000);

  it('says when a tab has no steps', async () => {
    const response = await env.raw('/script?profile=clawd&targetId=NOSUCHTAB');
    expect(response.status).toBe(404);
  });
});
