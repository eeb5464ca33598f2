import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../relay/src/client/browser-client.js';
import { NotFoundError, TimeoutError } from '../../relay/src/errors.js';
import { waitFor } from '../harness/chromium.js';
import { refOf } from '../harness/refs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Snapshots, actions and hooks (spec §6, issue 5), each on the managed
 * `clawd` profile and on the `extension` profile: snapshot, act by ref, and
 * the page's own state proves the effect.
 */

let env: ControlEnv;
const scratch = mkdtempSync(join(tmpdir(), 'clawd-uploads-'));

beforeAll(async () => {
  env = await startControlEnv();
});
afterAll(async () => {
  await env?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function evaluate<T>(api: BrowserClient, fn: string, options: { ref?: string; targetId?: string } = {}): Promise<T> {
  return (await api.evaluate(fn, options)).result as T;
}

describe.each(['clawd', 'extension'])('snapshots and actions on the %s profile', (profile) => {
  const api = () => env.client(profile);
  let tab: string;

  const open = async (path: string) => {
    tab = (await api().openTab(env.fixtures.url(path))).targetId;
    return tab;
  };
  const snapshot = async (limit?: number) => {
    const snap = await api().snapshot({ targetId: tab, limit });
    return String(snap.text);
  };

  it('fills a form by refs: text, select, checkbox, radio, submit', async () => {
    await open('form.html');
    const text = await snapshot();
    expect(text).toMatch(/textbox "Name".*\[ref=e\d+\]/);
    expect(text).toMatch(/combobox "Fruit"/);
    expect(text).toMatch(/checkbox "Subscribe"/);
    expect(text).toMatch(/button ".*" .*\[disabled\]|button .*disabled/i);
    // Deterministic for an unchanged page.
    expect(await snapshot()).toBe(text);

    await api().type(refOf(text, /textbox "Name"/), 'clawd', { targetId: tab });
    await api().select(refOf(text, /combobox "Fruit"/), ['banana'], { targetId: tab });
    await api().fill(
      [
        { ref: refOf(text, /checkbox "Subscribe"/), value: true },
        { ref: refOf(text, /radio "[Mm]edium"/), value: true },
      ],
      { targetId: tab },
    );
    await api().click(refOf(text, /button "Submit"/), { targetId: tab });
    const result = await evaluate<string>(api(), '() => document.querySelector("#result").textContent', { targetId: tab });
    expect(result).toContain('clawd');
    expect(result).toContain('banana');
    expect(result).toMatch(/"subscribe":\s*true/i);
    expect(result).toMatch(/medium/);
  });

  it('types slowly, presses keys, hovers, and takes an element screenshot by ref', async () => {
    await open('form.html');
    const text = await snapshot();
    const name = refOf(text, /textbox "Name"/);
    await api().type(name, 'ab', { slowly: true, targetId: tab });
    await api().press('End', { targetId: tab });
    await api().press('c', { targetId: tab });
    expect(await evaluate<string>(api(), '(el) => el.value', { ref: name, targetId: tab })).toBe('abc');
    await api().hover(name, { targetId: tab });
    expect(await evaluate<boolean>(api(), '(el) => el.matches(":hover")', { ref: name, targetId: tab })).toBe(true);
    const shot = await api().screenshot({ ref: name, targetId: tab } as never);
    const full = await api().screenshot({ targetId: tab });
    expect(Buffer.from(shot.data, 'base64').length).toBeLessThan(Buffer.from(full.data, 'base64').length);
  });

  it('drags one item onto the drop zone', async () => {
    await open('dnd.html');
    const text = await snapshot();
    const item = refOf(text, /^(?!.*drop).*item/i);
    const zone = refOf(text, /drop/i);
    await api().drag(item, zone, { targetId: tab });
    await waitFor(async () => /drop/i.test(await evaluate<string>(api(), '() => document.querySelector("#result").textContent', { targetId: tab })), {
      message: 'drop not recorded',
    });
  });

  it('answers dialogs armed beforehand: prompt with text, confirm dismissed', async () => {
    await open('dialogs.html');
    const text = await snapshot();
    await env.raw(`/hooks/dialog?profile=${profile}`, { method: 'POST', body: JSON.stringify({ targetId: tab, accept: true, promptText: 'hello' }) });
    await api().click(refOf(text, /button ".*[Pp]rompt/), { targetId: tab });
    await waitFor(async () => /hello/.test(await evaluate<string>(api(), '() => document.querySelector("#result").textContent', { targetId: tab })), {
      message: 'prompt answer not seen',
    });
    await api().dialog({ accept: false, targetId: tab });
    await api().click(refOf(text, /button ".*[Cc]onfirm/), { targetId: tab });
    await waitFor(async () => /false/.test(await evaluate<string>(api(), '() => document.querySelector("#result").textContent', { targetId: tab })), {
      message: 'confirm dismissal not seen',
    });
    const tooLong = await env.raw(`/hooks/dialog?profile=${profile}`, { method: 'POST', body: JSON.stringify({ accept: true, timeoutMs: 600_000 }) });
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error.message).toMatch(/2 minutes/);
  });

  it('uploads into a file input, and through a file chooser, by contents', async () => {
    await open('upload.html');
    const file = join(scratch, `notes-${profile}.txt`);
    writeFileSync(file, 'clawd upload body');
    const text = await snapshot();
    const uploaded = await api().fileChooser({ paths: [file], inputRef: refOf(text, /file|[Uu]pload/), targetId: tab });
    expect(uploaded.uploaded).toEqual([`notes-${profile}.txt`]);
    await waitFor(
      async () => /clawd upload body/.test(await evaluate<string>(api(), '() => document.querySelector("#result").textContent', { targetId: tab })),
      {
        message: 'input did not receive the file',
      },
    );
    const viaChooser = await api().fileChooser({ paths: [file], ref: refOf(text, /button "Choose file"/), targetId: tab });
    expect(viaChooser.uploaded).toEqual([`notes-${profile}.txt`]);
    await waitFor(
      async () =>
        new RegExp(`notes-${profile}`).test(await evaluate<string>(api(), '() => document.querySelector("#chooser-result").textContent', { targetId: tab })),
      {
        message: 'chooser did not receive the file',
      },
    );
    const missing = await env.raw(`/hooks/file-chooser?profile=${profile}`, {
      method: 'POST',
      body: JSON.stringify({ paths: [join(scratch, 'nope.txt')], targetId: tab }),
    });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.message).toContain('nope.txt');
    // Clicking something that opens no chooser times out with a clear message.
    await expect(api().fileChooser({ paths: [file], ref: refOf(text, /textbox|heading|button/), timeoutMs: 1500, targetId: tab })).rejects.toThrow(
      TimeoutError,
    );
  });

  it('reaches into a cross-origin iframe with f-refs', async () => {
    const child = env.fixtures.crossOriginUrl('frame-child.html');
    await open(`frame-host.html?src=${encodeURIComponent(child)}`);
    let text = '';
    await waitFor(async () => /\[ref=f\d+e\d+\]/.test((text = await snapshot())), { message: 'iframe content never appeared in the snapshot' });
    const inner = refOf(text, /\[ref=f\d+e\d+\]/);
    await api().click(inner, { targetId: tab });
    expect(await evaluate<string>(api(), '(el) => el.ownerDocument.body.dataset.clicked', { ref: inner, targetId: tab })).toBe('yes');
  });

  it('says when a ref is unknown or stale', async () => {
    await open('form.html');
    const text = await snapshot();
    const name = refOf(text, /textbox "Name"/);
    await expect(api().click('e99999', { targetId: tab })).rejects.toThrow(NotFoundError);
    // The typed error keeps which ref and why, from the page through the server to the client.
    await expect(api().click('e99999', { targetId: tab })).rejects.toMatchObject({ code: 'not_found', details: { ref: 'e99999', problem: 'unknown' } });
    await api().navigate(env.fixtures.url('index.html'), tab);
    await expect(api().type(name, 'x', { targetId: tab })).rejects.toThrow(/snapshot/i);
    await expect(api().type(name, 'x', { targetId: tab })).rejects.toMatchObject({ details: { ref: name, problem: 'stale' } });
  });

  it('cuts a 5,000-element page at the limit and says so', async () => {
    await open('many.html');
    const limited = await api().snapshot({ targetId: tab, limit: 50 });
    expect(limited.truncated).toBe(true);
    expect(String(limited.text).split('\n').length).toBeLessThanOrEqual(52);
    const full = await api().snapshot({ targetId: tab });
    const html = await evaluate<number>(api(), '() => document.documentElement.outerHTML.length', { targetId: tab });
    expect(String(full.text).length).toBeLessThan(html);
    const aria = await api().snapshot({ targetId: tab, format: 'aria', limit: 20 });
    expect(aria.nodes!.length).toBeLessThanOrEqual(20);
  });

  it('acts by coordinates: click, move, scroll; and resizes, waits, closes', async () => {
    await open('index.html?coords=1');
    const box = await evaluate<{ x: number; y: number }>(
      api(),
      '() => { const r = document.querySelector("#btn").getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; }',
      { targetId: tab },
    );
    await api().clickAt(box.x, box.y, { targetId: tab });
    expect(await evaluate<string>(api(), '() => document.querySelector("#count").textContent', { targetId: tab })).toBe('1');
    await api().act({ kind: 'move', x: 5, y: 5, targetId: tab });
    await api().resize(640, 400, { targetId: tab });
    expect(await evaluate<number>(api(), '() => window.innerWidth', { targetId: tab })).toBe(640);
    await api().navigate(env.fixtures.url('big.html'), tab);
    await api().act({ kind: 'scroll', x: 100, y: 100, deltaY: 900, targetId: tab });
    await waitFor(async () => (await evaluate<number>(api(), '() => window.scrollY', { targetId: tab })) > 0, { message: 'did not scroll' });
    await api().wait({ selector: 'canvas', targetId: tab });
    // Text is matched with its whitespace collapsed, as it reads: across a line break, and in words with s in them.
    await api().navigate(env.fixtures.url(`echo?body=${encodeURIComponent('<pre>Tests\n   pass    sometimes</pre>')}`), tab);
    await api().wait({ text: 'tests pass sometimes', timeoutMs: 2_000, targetId: tab });
    const gone = await env.raw(`/act?profile=${profile}`, {
      method: 'POST',
      body: JSON.stringify({ kind: 'wait', text: 'never on this page', timeoutMs: 500, targetId: tab }),
    });
    expect(gone.status).toBe(504);
    const unbounded = await env.raw(`/act?profile=${profile}`, { method: 'POST', body: JSON.stringify({ kind: 'wait', timeMs: 600_000 }) });
    expect(unbounded.status).toBe(400);
    await api().act({ kind: 'close', targetId: tab });
    expect((await api().tabs()).map((t) => t.targetId)).not.toContain(tab);
  });

  it('downloads: the file lands where the profile keeps downloads, and GET /downloads says where', async () => {
    await open('download.html');
    const text = await snapshot();
    await api().click(refOf(text, /link "Download report"/), { targetId: tab });
    let done: { path?: string; state: string } | undefined;
    await waitFor(
      async () => {
        done = (await api().downloads()).downloads.find((d) => d.state === 'complete' && d.path !== undefined);
        return done !== undefined;
      },
      { timeoutMs: 15_000, message: 'download never completed' },
    );
    expect(readFileSync(done!.path!, 'utf8')).toContain('clawd report');
    // The extension profile's file is in the (test) user's own download folder: leave nothing there.
    rmSync(done!.path!, { force: true });
  });
});
