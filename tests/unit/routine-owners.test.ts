import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Routine, RoutineOwner } from '../../relay/src/api/teach-schemas.js';
import { nameOfOwn, OPERATOR, ownerName, routineOrigins, sameSpace, visibleTo } from '../../relay/src/routines/routine-owners.js';
import { FileRoutineStore } from '../../relay/src/routines/routine-files.js';

/** Whose a routine is, and what each credential may do with it: the pure rules, and a file from before owners. */

const acme1: RoutineOwner = { by: 'session', session: 'aaaa11112222', tenant: 'acme' };
const acme2: RoutineOwner = { by: 'session', session: 'bbbb11112222', tenant: 'acme' };
const globex: RoutineOwner = { by: 'session', session: 'cccc11112222', tenant: 'globex' };
const loner: RoutineOwner = { by: 'session', session: 'dddd11112222' };

const routine = (owner: RoutineOwner, over: Partial<Routine> = {}): Routine => ({
  name: 'bank-login',
  description: 'Log in',
  createdAt: '2026-01-01T00:00:00.000Z',
  recordedOn: { profile: 'clawd', url: 'https://bank.example/login', title: 'Log in' },
  owner,
  parameters: [{ name: 'password', kind: 'secret', description: 'textbox "Password"', secret: 'PASSWORD' }],
  steps: [
    { kind: 'goto', url: 'https://bank.example/login' },
    {
      kind: 'type',
      element: { by: 'role', role: 'textbox', name: 'Password', exact: true },
      what: 'textbox "Password"',
      param: 'password',
      origin: 'https://auth.bank.example:8443',
    },
    { kind: 'goto', url: 'https://bank.example/accounts?x=1' },
  ],
  ...over,
});

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("a routine's owner", () => {
  it("is a space: the operator's, a tenant's (its sessions share it), or a tenantless session's", () => {
    expect(sameSpace(acme1, acme2)).toBe(true);
    expect(sameSpace(acme1, globex)).toBe(false);
    expect(sameSpace(loner, { by: 'session', session: 'eeee11112222' })).toBe(false);
    expect(sameSpace(OPERATOR, { by: 'operator' })).toBe(true);
    expect(sameSpace(OPERATOR, acme1)).toBe(false);
  });

  it("lets the operator see every routine, a key the operator's and its own space's, never another tenant's", () => {
    expect(visibleTo(routine(globex), OPERATOR)).toBe(true);
    expect(visibleTo(routine(OPERATOR), acme1)).toBe(true);
    expect(visibleTo(routine(acme2), acme1)).toBe(true);
    expect(visibleTo(routine(globex), acme1)).toBe(false);
    expect(visibleTo(routine(acme1), loner)).toBe(false);
  });

  it('is named to a key only where it may know it, and a free name of its own is offered', () => {
    expect(ownerName(OPERATOR, acme1)).toBe('the operator');
    expect(ownerName(globex, acme1)).toBe('another session');
    expect(ownerName(globex, OPERATOR)).toBe('tenant globex (session cccc11112222)');
    const taken = new Set(['bank-login', 'bank-login-acme']);
    expect(nameOfOwn('bank-login', acme1, (name) => taken.has(name))).toBe('bank-login-acme-2');
    expect(nameOfOwn('bank-login', loner, (name) => taken.has(name))).toBe('bank-login-dddd1111');
  });

  it('says where its steps go: where it was recorded, where it goes, where its secrets are typed', () => {
    expect(routineOrigins(routine(OPERATOR))).toEqual(['https://bank.example', 'https://auth.bank.example:8443']);
  });

  it("reads a file saved before owners as the operator's, and keeps an owner it saved", async () => {
    dir = mkdtempSync(join(tmpdir(), 'clawd-routines-'));
    const { owner: _none, ...old } = routine(OPERATOR, { name: 'old-one' });
    writeFileSync(join(dir, 'old-one.json'), JSON.stringify(old));
    const store = new FileRoutineStore(dir);
    expect((await store.find('old-one'))?.owner).toEqual({ by: 'operator' });
    await store.save(routine(acme1, { name: 'new-one' }));
    expect(JSON.parse(readFileSync(join(dir, 'new-one.json'), 'utf8')).owner).toEqual(acme1);
    expect((await store.list()).map((listed) => [listed.name, listed.owner.by])).toEqual([
      ['new-one', 'session'],
      ['old-one', 'operator'],
    ]);
    expect(await store.find('none-such')).toBeUndefined();
  });
});
