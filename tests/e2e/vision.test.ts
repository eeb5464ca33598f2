import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../relay/src/client/browser-client.js';
import { startPackageSite } from '../harness/package-site.js';
import { rejection } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * For agents that look, on real Chromium: signature_pad's own demo page (a
 * canvas app nobody here wrote) drawn on by coordinates alone, through
 * OpenAI's and Anthropic's action shapes, checked in the canvas's own data
 * (the library's strokes, the canvas's pixels) at device pixel ratios 1 and
 * 2 with the picture scaled to a display the model was told; a form filled
 * through a labelled screenshot's numbers; bad batches refused by name with
 * the page untouched. On the managed profile and on a shared tab.
 */

let env: ControlEnv;
let pad: Awaited<ReturnType<typeof startPackageSite>>;
beforeAll(async () => {
  env = await startControlEnv();
  pad = await startPackageSite('signature_pad');
}, 90_000);
afterAll(async () => {
  await pad?.close();
  await env?.close();
});

async function evaluate<T>(client: BrowserClient, targetId: string, fn: string): Promise<T> {
  return (await client.act({ kind: 'evaluate', targetId, fn })).result as T;
}

type Stroke = { points: Array<{ x: number; y: number }> };
const strokes = (client: BrowserClient, targetId: string) =>
  evaluate<Stroke[]>(client, targetId, '() => signaturePad.toData().map((s) => ({ points: s.points.map((p) => ({ x: p.x, y: p.y })) }))');
/** Whether the canvas is inked at a CSS point of its own (read from its pixels, at its backing store's ratio). */
const inked = (client: BrowserClient, targetId: string, x: number, y: number) =>
  evaluate<boolean>(
    client,
    targetId,
    `() => { const c = document.querySelector('canvas'); const r = c.width / c.offsetWidth; const d = c.getContext('2d').getImageData(Math.round(${x} * r) - 1, Math.round(${y} * r) - 1, 3, 3).data; for (let i = 0; i < d.length; i += 4) if (d[i] < 128) return true; return false; }`,
  );

describe.each([
  { profile: 'clawd', ratio: 1 },
  { profile: 'clawd', ratio: 2 },
  { profile: 'extension', ratio: 1 },
])('computer use on signature_pad ($profile profile, device pixel ratio $ratio)', ({ profile, ratio }) => {
  it("draws what the model aimed at, in both vendors' shapes, and undoes with each vendor's key names", async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(pad.url('/docs/index.html'));
    await client.toolbox.emulate({ targetId, viewport: { width: 1000, height: 700 }, deviceScaleFactor: ratio });
    await client.navigate(pad.url('/docs/index.html'), targetId);
    expect(await evaluate(client, targetId, '() => devicePixelRatio')).toBe(ratio);
    // The model was told 800×560: the picture is 0.8 of the page's CSS pixels.
    const display = { width: 800, height: 560 };
    const first = await client.vision.computerOpenai({ targetId, display, actions: [{ type: 'screenshot' }] });
    expect(first.screenshot).toMatchObject({ width: 800, height: 560, mimeType: 'image/png' });
    expect(first.scale).toBeCloseTo(0.8, 5);
    const decoded = PNG.sync.read(Buffer.from(first.screenshot!.data, 'base64'));
    expect([decoded.width, decoded.height]).toEqual([800, 560]);

    const canvas = await evaluate<{ x: number; y: number; width: number; height: number }>(
      client,
      targetId,
      "() => { const r = document.querySelector('canvas').getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; }",
    );
    // Where a model would aim, in the picture's pixels: a line across the canvas's upper third.
    const onScreen = (fx: number, fy: number) => ({
      x: Math.round((canvas.x + canvas.width * fx) * 0.8),
      y: Math.round((canvas.y + canvas.height * fy) * 0.8),
    });
    const a = onScreen(0.2, 0.3);
    const b = onScreen(0.6, 0.35);
    const drawn = await client.vision.computerOpenai({ targetId, display, actions: [{ type: 'drag', path: [a, onScreen(0.4, 0.32), b] }] });
    expect(drawn).toMatchObject({ performed: 1, cursor: { x: b.x, y: b.y } });
    let data = await strokes(client, targetId);
    expect(data).toHaveLength(1);
    // The stroke starts where the model pressed: its pixel, scaled back, relative to the canvas.
    expect(data[0].points[0].x).toBeCloseTo(a.x / 0.8 - canvas.x, 0);
    expect(data[0].points[0].y).toBeCloseTo(a.y / 0.8 - canvas.y, 0);
    expect(await inked(client, targetId, a.x / 0.8 - canvas.x, a.y / 0.8 - canvas.y)).toBe(true);

    const c = onScreen(0.3, 0.7);
    const d = onScreen(0.7, 0.75);
    await client.vision.computerAnthropic({
      targetId,
      display,
      actions: [{ action: 'left_click_drag', start_coordinate: [c.x, c.y], coordinate: [d.x, d.y] }],
    });
    data = await strokes(client, targetId);
    expect(data).toHaveLength(2);
    expect(data[1].points[0].x).toBeCloseTo(c.x / 0.8 - canvas.x, 0);
    expect(data[1].points[0].y).toBeCloseTo(c.y / 0.8 - canvas.y, 0);
    expect(await inked(client, targetId, c.x / 0.8 - canvas.x, c.y / 0.8 - canvas.y)).toBe(true);

    // The demo undoes a stroke on Ctrl+Z (its keydown handler checks key === "z" with ctrlKey).
    const undone = await client.vision.computerAnthropic({
      targetId,
      display,
      actions: [{ action: 'key', text: 'ctrl+z' }, { action: 'cursor_position' }],
      screenshot: false,
    });
    expect(undone).toMatchObject({ performed: 2, cursor: { x: d.x, y: d.y } });
    expect(undone.screenshot).toBeUndefined();
    expect(await strokes(client, targetId)).toHaveLength(1);
    await client.vision.computerOpenai({ targetId, display, actions: [{ type: 'keypress', keys: ['CTRL', 'Z'] }] });
    expect(await strokes(client, targetId)).toHaveLength(0);
    expect(await inked(client, targetId, a.x / 0.8 - canvas.x, a.y / 0.8 - canvas.y)).toBe(false);
    await client.closeTab(targetId);
  });
});

describe.each(['clawd', 'extension'])('labelled screenshots on the %s profile', (profile) => {
  it('numbers each ref as a box; a form is filled through the numbers, and a click at a box lands on it', async () => {
    const client = env.client(profile);
    const { targetId } = await client.openTab(env.fixtures.url('form.html'));
    const shot = await client.vision.labelledScreenshot({ targetId, snapshot: true });
    const byName = (role: string, name: string) => shot.labels.find((label) => label.role === role && label.name === name)!;
    const name = byName('textbox', 'Name');
    const submit = byName('button', 'Submit');
    expect(name).toBeDefined();
    expect(submit).toBeDefined();
    // The numbers are the refs of the snapshot taken with the picture.
    for (const label of shot.labels) {
      expect(label.ref).toBe(`e${label.label}`);
      expect(shot.snapshot).toContain(`[ref=${label.ref}]`);
    }
    // The picture has the boxes drawn on it: the left edge of Name's box is in a label colour, not the page's white.
    const picture = PNG.sync.read(Buffer.from(shot.data, 'base64'));
    expect([picture.width, picture.height]).toEqual([shot.width, shot.height]);
    const at = (picture.width * Math.round(name.box.y + name.box.height / 2) + name.box.x) * 4;
    expect([...picture.data.subarray(at, at + 3)]).not.toEqual([255, 255, 255]);
    expect(picture.data[at]).not.toBe(picture.data[at + 1]);

    // An agent that reads the numbers: types into 12 as e12.
    await client.act({ kind: 'type', targetId, ref: `e${name.label}`, text: 'Ada' });
    const subscribe = shot.labels.find((label) => label.role === 'checkbox')!;
    // One that looks: clicks the middle of the boxes.
    const middle = (box: { x: number; y: number; width: number; height: number }): [number, number] => [
      Math.round(box.x + box.width / 2),
      Math.round(box.y + box.height / 2),
    ];
    await client.vision.computerAnthropic({
      targetId,
      actions: [
        { action: 'left_click', coordinate: middle(subscribe.box) },
        { action: 'left_click', coordinate: middle(submit.box) },
      ],
    });
    const result = JSON.parse(await evaluate<string>(client, targetId, "() => document.getElementById('result').textContent"));
    expect(result).toMatchObject({ name: 'Ada', subscribe: true });
    await client.closeTab(targetId);
  });
});

describe('labelled screenshots and computer use, scaled', () => {
  it('at device pixel ratio 2 and a display half the viewport, boxes and clicks agree with the page', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(env.fixtures.url('form.html'));
    await client.toolbox.emulate({ targetId, viewport: { width: 1000, height: 800 }, deviceScaleFactor: 2 });
    const display = { width: 500, height: 400 };
    const shot = await client.vision.labelledScreenshot({ targetId, display, type: 'jpeg' });
    expect(shot).toMatchObject({ width: 500, height: 400, mimeType: 'image/jpeg', scale: 0.5 });
    const submit = shot.labels.find((label) => label.role === 'button' && label.name === 'Submit')!;
    const rect = await evaluate<{ x: number; y: number; width: number }>(
      client,
      targetId,
      "() => { const r = document.getElementById('submit').getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width }; }",
    );
    expect(submit.box.x).toBeCloseTo(rect.x / 2, 0);
    expect(submit.box.y).toBeCloseTo(rect.y / 2, 0);
    expect(submit.box.width).toBeCloseTo(rect.width / 2, 0);
    await evaluate(client, targetId, "() => { window.clicks = []; document.addEventListener('click', (e) => clicks.push([e.clientX, e.clientY])); }");
    await client.vision.computerOpenai({
      targetId,
      display,
      actions: [
        { type: 'click', x: 100, y: 150, button: 'left' },
        { type: 'double_click', x: 10, y: 20 },
      ],
    });
    expect(await evaluate(client, targetId, '() => clicks')).toEqual([
      [200, 300],
      [20, 40],
      [20, 40],
    ]);
    await client.closeTab(targetId);
  });

  it("scrolls by the picture's pixels (OpenAI) or by notches (Anthropic), and says what changed", async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(env.fixtures.url('big.html'));
    await client.toolbox.emulate({ targetId, viewport: { width: 800, height: 600 } });
    const display = { width: 400, height: 300 };
    await client.vision.computerOpenai({ targetId, display, actions: [{ type: 'scroll', x: 200, y: 150, scroll_x: 0, scroll_y: 200 }] });
    expect(await evaluate(client, targetId, '() => scrollY')).toBe(400);
    await client.vision.computerAnthropic({
      targetId,
      display,
      actions: [{ action: 'scroll', coordinate: [200, 150], scroll_direction: 'down', scroll_amount: 3 }],
    });
    expect(await evaluate(client, targetId, '() => scrollY')).toBe(700);
    // A link followed and a dialog answered are said when asked for.
    await client.navigate(
      env.fixtures.url(
        'echo?body=' +
          encodeURIComponent(
            '<a href="/form.html" style="display:block;width:300px;height:100px">go</a><button onclick="alert(1)" style="display:block;width:300px;height:100px">alert</button>',
          ),
      ),
      targetId,
    );
    const alerted = await client.vision.computerOpenai({
      targetId,
      display,
      changes: true,
      screenshot: false,
      actions: [{ type: 'click', x: 50, y: 75, button: 'left' }],
    });
    expect(alerted.changes).toMatchObject({ navigated: false, events: [expect.stringMatching(/^alert dialog "1" dismissed/)] });
    const followed = await client.vision.computerAnthropic({ targetId, display, changes: true, actions: [{ action: 'left_click', coordinate: [50, 25] }] });
    expect(followed).toMatchObject({ url: env.fixtures.url('form.html'), changes: { navigated: true, from: expect.stringContaining('echo?') } });
    await client.closeTab(targetId);
  });

  it('refuses an unknown action, key or field, and a point off the screen, by name, before anything runs', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(env.fixtures.url('form.html'));
    await client.act({
      kind: 'click',
      targetId,
      ref: (await client.vision.labelledScreenshot({ targetId })).labels.find((label) => label.name === 'Name')!.ref,
    });
    const typed = () => evaluate<string>(client, targetId, "() => document.getElementById('name').value");
    const refusals: Array<[() => Promise<unknown>, RegExp]> = [
      [
        () => client.vision.computerOpenai({ targetId, actions: [{ type: 'type', text: 'x' }, { type: 'hover' } as never] }),
        /actions\.1\.type: Invalid discriminator/,
      ],
      [
        () =>
          client.vision.computerOpenai({
            targetId,
            actions: [
              { type: 'type', text: 'x' },
              { type: 'keypress', keys: ['CTRL', 'HYPER'] },
            ],
          }),
        /actions\.1\.keys\.1: no key is named "HYPER"/,
      ],
      [
        () =>
          client.vision.computerAnthropic({
            targetId,
            actions: [
              { action: 'type', text: 'x' },
              { action: 'key', text: 'ctrl+Hyper_Q' },
            ],
          }),
        /actions\.1\.text: no key is named "Hyper_Q"/,
      ],
      [
        () =>
          client.vision.computerAnthropic({
            targetId,
            actions: [
              { action: 'type', text: 'x' },
              { action: 'left_click_drag', coordinate: [5, 5] },
            ],
          }),
        /actions\.1\.start_coordinate: left_click_drag needs start_coordinate/,
      ],
      [
        () =>
          client.vision.computerAnthropic({
            targetId,
            actions: [
              { action: 'type', text: 'x' },
              { action: 'left_click', coordinate: [5, 5], scroll_amount: 2 },
            ],
          }),
        /actions\.1\.scroll_amount: left_click takes coordinate, text/,
      ],
      [
        () =>
          client.vision.computerAnthropic({
            targetId,
            actions: [{ action: 'type', text: 'x' }, { action: 'triple_click', coordinate: [5, 5], button: 'left' } as never],
          }),
        /actions\.1: Unrecognized key: "button"/,
      ],
      [
        () =>
          client.vision.computerOpenai({
            targetId,
            display: { width: 640, height: 480 },
            actions: [
              { type: 'type', text: 'x' },
              { type: 'click', x: 700, y: 10, button: 'left' },
            ],
          }),
        /actions\.1: \(700, 10\) is off the screen, which is 640×\d+/,
      ],
    ];
    for (const [call, message] of refusals) {
      const error = await rejection(call());
      expect(error).toMatchObject({ status: 400 });
      expect(error.message).toMatch(message);
    }
    // Nothing of a refused batch ran.
    expect(await typed()).toBe('');
    await client.vision.computerOpenai({ targetId, actions: [{ type: 'type', text: 'Grace' }], screenshot: false });
    expect(await typed()).toBe('Grace');
    await client.closeTab(targetId);
  });
});
