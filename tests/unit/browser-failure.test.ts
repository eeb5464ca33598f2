import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { actionBlockers, failureKind, type FailureKind, inputSent } from '../../relay/src/driver/browser-failure.js';
import { ConflictError, TimeoutError } from '../../relay/src/errors.js';

/** Failures as Playwright threw them against Chromium (tests/fixtures/playwright-failures.json says which versions). */
const captured = JSON.parse(readFileSync(new URL('../fixtures/playwright-failures.json', import.meta.url), 'utf8')).failures as Record<
  string,
  { name: string; message: string }
>;

/** The failure as Playwright's client hands it over: an Error with that name and message. */
function thrown(which: string): Error {
  const { name, message } = captured[which];
  return Object.assign(new Error(message), { name });
}

describe('a browser failure is classified once, from what Playwright and CDP say', () => {
  const expected: Record<string, FailureKind> = {
    'invalid-url': 'invalid-url',
    'timeout-hidden': 'timeout',
    'timeout-disabled': 'timeout',
    'timeout-covered': 'timeout',
    'timeout-moving': 'timeout',
    'fill-number': 'value-refused',
    syntax: 'bad-script',
    'not-function': 'bad-script',
    'detached-handle': 'detached',
    'frame-detached': 'detached',
    'cdp-no-node': 'detached',
    'context-destroyed': 'navigation-interrupted',
    'cdp-no-context': 'navigation-interrupted',
    'goto-interrupted': 'navigation-interrupted',
    // A renderer killed while its navigation ran: the navigation is cut short; the next call hears the crash.
    crash: 'navigation-interrupted',
    'after-crash': 'target-gone',
    'page-closed': 'target-gone',
    'page-closed-pending': 'target-gone',
    'cdp-session-after-close': 'target-gone',
    'browser-closed': 'target-gone',
    'cdp-webauthn': 'domain-disabled',
  };

  it('names the kind of every captured failure', () => {
    expect(Object.keys(expected).sort()).toEqual(Object.keys(captured).sort());
    for (const [which, kind] of Object.entries(expected)) expect([which, failureKind(thrown(which))]).toEqual([which, kind]);
  });

  it('reads the message without the call log, whose lines name states along the way', () => {
    // The call log of a click says "element is not attached" on the way; the failure is the timeout.
    const error = Object.assign(new Error('locator.click: Timeout 1000ms exceeded.\nCall log:\n  - element is not attached to the DOM\n  - Target closed'), {
      name: 'Error',
    });
    expect(failureKind(error)).toBe('timeout');
    expect(failureKind(new Error('page.fill: Error: boom\nCall log:\n  - Frame was detached'))).toBeUndefined();
  });

  it('knows the class names Playwright gives and CDP messages heard through other clients', () => {
    expect(failureKind(Object.assign(new Error('whatever'), { name: 'TargetClosedError' }))).toBe('target-gone');
    expect(failureKind(new Error("Protocol error (WebMCP.enable): 'WebMCP.enable' wasn't found"))).toBe('method-unavailable');
    expect(failureKind(new Error('Protocol error (Target.attachToTarget): Not allowed'))).toBe('method-unavailable');
    expect(failureKind(new Error('Protocol error (Runtime.evaluate): Session closed. Most likely the page has been closed.'))).toBe('target-gone');
  });

  it('says nothing of our own errors, of other failures, or of what is no error', () => {
    expect(failureKind(new TimeoutError('Navigating to https://example.com/ timed out'))).toBeUndefined();
    expect(failureKind(new ConflictError('e12 is covered by <div>'))).toBeUndefined();
    expect(failureKind(new Error('ECONNREFUSED 127.0.0.1:9'))).toBeUndefined();
    expect(failureKind(undefined)).toBeUndefined();
    expect(failureKind('Target closed')).toBe('target-gone');
  });
});

describe("Playwright's call log, read for why an element could not be acted on", () => {
  it('names the element that covers it, then each state the log names, first the one to tell', () => {
    expect(actionBlockers(thrown('timeout-covered'))).toEqual([{ kind: 'covered', by: '<div class="overlay"></div>' }]);
    expect(actionBlockers(thrown('timeout-disabled'))).toEqual([{ kind: 'not-enabled' }]);
    expect(actionBlockers(thrown('timeout-hidden'))).toEqual([{ kind: 'not-visible' }]);
    expect(actionBlockers(thrown('timeout-moving'))).toEqual([{ kind: 'not-stable' }]);
    expect(
      actionBlockers(
        new Error('locator.click: Timeout 1000ms exceeded.\nCall log:\n  - element is not visible\n  - retrying click action\n  - element is not stable'),
      ),
    ).toEqual([{ kind: 'not-visible' }, { kind: 'not-stable' }]);
    expect(actionBlockers(thrown('page-closed'))).toEqual([]);
  });

  it('says whether the input went out since the last retry', () => {
    expect(inputSent(thrown('timeout-covered'))).toBe('no');
    const log = (...lines: string[]) =>
      new Error(['locator.click: Timeout 1000ms exceeded.', 'Call log:', ...lines.map((line) => `\u001b[2m${line}\u001b[22m`)].join('\n'));
    expect(inputSent(log('  - performing click action', '  - retrying click action', '  - element is not stable'))).toBe('no');
    expect(inputSent(log('  - retrying click action', '  - performing click action'))).toBe('sending');
    expect(inputSent(log('  - performing click action', '  - click action done', '  - waiting for scheduled navigations to finish'))).toBe('done');
  });
});
