import { describe, expect, it } from 'vitest';
import { HandoffService, type LinkMaker } from '../../relay/src/service/handoff-service.js';
import { fakeDriver, fakeDrivers, fakeOperations, memoryAudit, scratchActionLog, type FakeTab } from '../harness/service-fakes.js';

// Hand-offs built alone, on fakes of their ports: what an agent, a person and the audit see of one.

function setup() {
  const tab: FakeTab = { targetId: 'T1', url: 'https://shop.example/login', title: 'Log in' };
  const other: FakeTab = { targetId: 'T9', url: 'https://other.example/', title: 'Other' };
  const drivers = fakeDrivers([fakeDriver('work', [tab]), fakeDriver('session-abc', [other])]);
  const operations = fakeOperations(drivers);
  const audit = memoryAudit();
  const actionLog = scratchActionLog();
  const handoffs = new HandoffService({ operations, drivers, actionLog }, audit);
  const links: string[] = [];
  const link: LinkMaker = (handoff, to) => {
    links.push(`${to}:${handoff.id}`);
    return `http://127.0.0.1/handoff/${handoff.id}/open?code=${to}`;
  };
  return { tab, handoffs, audit, operations, actionLog, link, links };
}

describe('HandoffService', () => {
  it('opens a hand-off as an operation, gives the agent its link, and audits its start and end', async () => {
    const { handoffs, audit, operations, link, links } = setup();
    const opened = await handoffs.open('work', { targetId: 'T1', reason: 'Log in for me', timeoutSec: 60 }, link);
    expect(opened).toMatchObject({ profile: 'work', targetId: 'T1', reason: 'Log in for me', state: 'waiting' });
    expect(opened.link).toContain(`/handoff/${opened.id}/open`);
    expect(links).toEqual([`agent:${opened.id}`]);
    expect(operations.ran).toEqual(['handoff']);
    await handoffs.cancel('work', opened.id);
    expect(audit.entries.map((entry) => [entry.event, entry.outcome])).toEqual([
      ['handoff-open', 'ok'],
      ['handoff-end', 'refused'],
    ]);
  });

  it("tells, once the person answered, where the tab is now, what changed, and logs the answer as the person's", async () => {
    const { tab, handoffs, link, actionLog } = setup();
    const opened = await handoffs.open('work', { targetId: 'T1', reason: 'Log in', timeoutSec: 60 }, link);
    tab.url = 'https://shop.example/account';
    tab.title = 'Your account';
    const answered = await handoffs.answer(opened.id, { verdict: 'done', note: 'logged in' }, 'person');
    expect(answered).toMatchObject({
      state: 'done',
      note: 'logged in',
      now: { url: 'https://shop.example/account', title: 'Your account' },
      changed: { navigated: true, titleChanged: true },
    });
    expect(actionLog.recent({ limit: 10 }).map((action) => [action.kind, action.actor])).toEqual([['handoff-done', 'person']]);
    await expect(handoffs.answer(opened.id, { verdict: 'done' }, 'person')).rejects.toThrow(/over \(done\)/);
  });

  it("refuses an agent's yes to an act a confirm rule names, and takes the person's", async () => {
    const { handoffs, link, links } = setup();
    const opened = await handoffs.open('work', { targetId: 'T1', reason: 'Say yes', timeoutSec: 60 }, link, undefined, {
      rule: 'payments',
      act: 'click button "Pay"',
    });
    // A yes to an act: no link for the agent, and the person is asked in the console.
    expect(opened.link).toBeUndefined();
    expect(opened.askedIn).toEqual(['console']);
    expect(links).toEqual([]);
    await expect(handoffs.answer(opened.id, { verdict: 'done' }, 'agent')).rejects.toMatchObject({ status: 403 });
    expect((await handoffs.state(undefined, opened.id, 0)).state).toBe('waiting');
    expect((await handoffs.answer(opened.id, { verdict: 'done' }, 'person')).state).toBe('done');
  });

  it('shows, once a hand-off ended, what its yes set off, or why that failed', async () => {
    const { handoffs, link } = setup();
    const ran = await handoffs.open('work', { targetId: 'T1', reason: 'one', timeoutSec: 60 }, link);
    handoffs.follow(ran.id, Promise.resolve({ kind: 'click', targetId: 'T1' }));
    expect((await handoffs.state(undefined, ran.id, 0)).act).toBeUndefined();
    await handoffs.answer(ran.id, { verdict: 'done' }, 'person');
    expect((await handoffs.state(undefined, ran.id, 0)).act).toEqual({ kind: 'click', targetId: 'T1' });

    const failed = await handoffs.open('work', { targetId: 'T1', reason: 'two', timeoutSec: 60 }, link);
    handoffs.follow(failed.id, Promise.reject(new Error('the button went away')));
    await handoffs.answer(failed.id, { verdict: 'done' }, 'person');
    expect((await handoffs.state(undefined, failed.id, 0)).actError).toEqual({ code: 'internal', message: 'the button went away' });
  });

  it("finds a scoped caller's own hand-offs only, and a session's end ends its hand-offs", async () => {
    const { handoffs, audit, link } = setup();
    const mine = await handoffs.open('session-abc', { targetId: 'T9', reason: 'session', timeoutSec: 60 }, link);
    expect(() => handoffs.find('work', mine.id)).toThrow(/No hand-off/);
    expect(handoffs.find('session-abc', mine.id).id).toBe(mine.id);
    audit.record({ event: 'session-stop', session: 'abc', outcome: 'ok' });
    expect((await handoffs.state(undefined, mine.id, 0)).state).toBe('cancelled');
    expect(() => handoffs.waiting(mine.id)).toThrow(/over \(cancelled\)/);
  });

  it('waits for the end with openAndWait, and cancels the hand-off when the agent stops waiting', async () => {
    const { handoffs, link } = setup();
    const stop = new AbortController();
    let opened: string | undefined;
    const waited = handoffs.openAndWait('work', { targetId: 'T1', reason: 'wait', timeoutSec: 60 }, link, stop.signal, (handoff) => {
      opened = handoff.id;
      // The agent goes while it waits (its MCP call cancelled).
      setTimeout(() => stop.abort(), 20);
    });
    await waited.catch(() => undefined);
    expect(opened).toBeDefined();
    expect((await handoffs.state(undefined, opened!, 0)).state).toBe('cancelled');
  });
});
