import { describe, expect, it } from 'vitest';
import type { ActionResult } from '../../relay/src/api/responses.js';
import type { Act, Perform } from '../../relay/src/service/act-performer.js';
import { ConfirmService } from '../../relay/src/service/confirm-service.js';
import { HandoffService } from '../../relay/src/service/handoff-service.js';
import { fakeDriver, fakeDrivers, fakeOperations, memoryAudit, scratchActionLog } from '../harness/service-fakes.js';

// Confirmations built alone on fakes of their ports, over the real hand-offs: when an act a rule names
// runs, waits for a person, or is refused, and what the audit keeps of each.

const PAY = { consequence: { rule: 'payments', act: 'click button "Pay"' }, viewport: { width: 1000, height: 800 } };
const click: Act = { kind: 'click', ref: 'e4', targetId: 'T1' } as Act;

function setup(options: { askPerson?: 'auto' | 'always' | 'never'; consoleOpen?: boolean; sessions?: string[]; names?: boolean } = {}) {
  const tabs = [{ targetId: 'T1', url: 'https://shop.example/cart', title: 'Cart' }];
  const drivers = fakeDrivers([fakeDriver('work', tabs, () => (options.names === false ? undefined : PAY)), fakeDriver('session-s1', tabs, () => PAY)], {
    confirm: { askPerson: options.askPerson ?? 'auto', waitSeconds: 30 },
  });
  const operations = fakeOperations(drivers);
  const audit = memoryAudit();
  const handoffs = new HandoffService({ operations, drivers, actionLog: scratchActionLog() }, audit);
  const performed: string[] = [];
  const perform: Perform = async (profile, action) => {
    performed.push(`${profile}:${action.kind}`);
    return { targetId: action.targetId ?? 'T1', kind: action.kind, url: 'https://shop.example/paid' } as ActionResult;
  };
  const confirmations = new ConfirmService(
    {
      config: () => drivers.registry.config(),
      drivers,
      perform,
      handoffs,
      link: () => (handoff, to) => `http://127.0.0.1/handoff/${handoff.id}?to=${to}`,
      sessionsHave: (id) => (options.sessions ?? []).includes(id),
      consoleOpen: () => options.consoleOpen ?? false,
    },
    audit,
  );
  return { confirmations, handoffs, audit, performed };
}

const events = (audit: ReturnType<typeof memoryAudit>) =>
  audit.entries.filter((entry) => entry.event.startsWith('confirm-')).map((entry) => `${entry.event}:${entry.outcome}`);

describe('ConfirmService', () => {
  it('runs an act no rule names at once', async () => {
    const { confirmations, performed, audit } = setup({ names: false });
    const answer = await confirmations.act('work', click, undefined, {});
    expect(answer.confirmed).toBeUndefined();
    expect(performed).toEqual(['work:click']);
    expect(events(audit)).toEqual([]);
  });

  it('refuses, with a 409 naming the rule, an act a rule names when nobody can be asked', async () => {
    const { confirmations, performed, audit } = setup();
    await expect(confirmations.act('work', click, undefined, {})).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('confirm rule payments'),
    });
    expect(performed).toEqual([]);
    expect(events(audit)).toEqual(['confirm-ask:refused']);
  });

  it('asks a person when the console is open, and runs the act on their yes, by them', async () => {
    const { confirmations, handoffs, performed, audit } = setup({ consoleOpen: true });
    const asked: string[] = [];
    const waiting = confirmations.act('work', click, undefined, { wait: true, onConfirmation: (confirmation) => asked.push(confirmation.id) });
    await expect.poll(() => asked.length).toBe(1);
    expect(performed).toEqual([]);
    const handoff = handoffs.find(undefined, asked[0]);
    expect(handoff.confirm).toMatchObject({ rule: 'payments', act: 'click button "Pay"' });
    await handoffs.answer(asked[0], { verdict: 'done' }, 'person');
    const answer = await waiting;
    expect(answer.confirmed).toEqual({ rule: 'payments', by: 'person', handoff: asked[0] });
    expect(performed).toEqual(['work:click']);
    // The hand-off's own answer shows the act's, once it ran.
    expect((await handoffs.state(undefined, asked[0], 0)).act).toMatchObject({ kind: 'click', url: 'https://shop.example/paid' });
    expect(events(audit)).toEqual(['confirm-ask:ok', 'confirm-yes:ok']);
  });

  it("answers at once with the hand-off's handle when the caller does not wait, and never runs on a no", async () => {
    const { confirmations, handoffs, performed, audit } = setup({ askPerson: 'always' });
    const answer = await confirmations.act('work', click, undefined, {});
    expect(answer.confirmation).toMatchObject({ rule: 'payments', state: 'waiting', askedIn: ['console'] });
    await handoffs.answer(answer.confirmation!.id, { verdict: 'refused', note: 'too dear' }, 'person');
    const ended = await handoffs.state(undefined, answer.confirmation!.id, 0);
    expect(ended.actError).toMatchObject({ code: 'conflict', message: expect.stringContaining('the person said no: "too dear"') });
    expect(performed).toEqual([]);
    expect(events(audit)).toEqual(['confirm-ask:ok', 'confirm-no:refused']);
  });

  it("runs a rule the token's holder pre-approved for a session without asking, and only in that session", async () => {
    const { confirmations, performed, audit } = setup({ sessions: ['s1'] });
    expect(() => confirmations.approve('nope', 'payments')).toThrow(/No task session/);
    expect(() => confirmations.approve('s1', 'no-such-rule')).toThrow(/No confirm rule/);
    expect(confirmations.approve('s1', 'payments')).toEqual({ session: 's1', approved: ['payments'] });
    const answer = await confirmations.act('session-s1', click, undefined, {});
    expect(answer.confirmed).toEqual({ rule: 'payments', by: 'pre-approval' });
    await expect(confirmations.act('work', click, undefined, {})).rejects.toMatchObject({ status: 409 });
    expect(performed).toEqual(['session-s1:click']);
    // The session's end takes its approvals with it.
    audit.record({ event: 'session-stop', session: 's1', outcome: 'ok' });
    await expect(confirmations.act('session-s1', click, undefined, {})).rejects.toMatchObject({ status: 409 });
    expect(events(audit)).toEqual(['confirm-approve:ok', 'confirm-yes:ok', 'confirm-ask:refused', 'confirm-ask:refused']);
  });

  it('discards a download a rule names when nobody can be asked, and keeps any other', async () => {
    const { confirmations } = setup();
    const tab = { noteEvent: () => {}, targetId: async () => 'T1' } as never;
    expect(await confirmations.download({ profile: 'work', tab, fileName: 'report.pdf', url: 'https://shop.example/report.pdf' })).toEqual({ keep: true });
    expect(await confirmations.download({ profile: 'work', tab, fileName: 'setup.exe', url: 'https://shop.example/setup.exe' })).toMatchObject({
      keep: false,
      rule: 'executables',
      why: expect.stringContaining('no person can be asked'),
    });
  });
});
