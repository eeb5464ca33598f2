import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretNames } from '../../relay/src/driver/secrets/secret-typing.js';
import { BrowserSecrets } from '../../relay/src/driver/secrets/browser-secrets.js';
import { atTheEdge } from '../../relay/src/service/api-edge.js';
import { VaultTamperedError } from '../../relay/src/vault/cookie-vault.js';
import { FileSecretRows, SecretStore } from '../../relay/src/vault/secret-store.js';
import { tempDirs } from '../harness/temp-dirs.js';

/** The secret store's seal, the placeholders an action names, and the redaction of every form a value travels in. */

const dirs = tempDirs('clawd-secrets-');

describe('SecretStore', () => {
  it('seals each secret with its tenant, name and domains: widening its domains in the file makes it fail to open', async () => {
    const path = join(dirs(), 'secrets.json');
    const store = new SecretStore(new FileSecretRows(path), randomBytes(32));
    await store.set('acme', 'pw', ['Example.com', 'example.com'], 'hunter2-long-value');
    expect(await store.open('acme', 'pw')).toEqual({ name: 'pw', value: 'hunter2-long-value', domains: ['example.com'], kind: 'secret' });
    expect(await store.open('acme', 'other')).toBeUndefined();
    expect(readFileSync(path, 'utf8')).not.toContain('hunter2');
    const file = JSON.parse(readFileSync(path, 'utf8'));
    file.entries[0].domains = ['example.com', 'evil.test'];
    writeFileSync(path, JSON.stringify(file));
    await expect(store.open('acme', 'pw')).rejects.toThrow(VaultTamperedError);
    expect((await store.forget('acme')).map((secret) => secret.name)).toEqual(['pw']);
  });
});

describe('one-time code seeds in the SecretStore', () => {
  it('keeps a seed checked and normalised, says it is one, and binds its kind: a seed turned into a plain secret in the file fails to open', async () => {
    const path = join(dirs(), 'secrets.json');
    const store = new SecretStore(new FileSecretRows(path), randomBytes(32));
    const listing = await store.set('acme', 'otp', ['example.com'], 'otpauth://totp/Acme:alice?secret=JBSWY3DPEHPK3PXPJBSWY3DP&issuer=Acme&digits=8', 'totp');
    expect(listing).toMatchObject({ name: 'otp', kind: 'totp' });
    const opened = await store.open('acme', 'otp');
    expect(opened?.kind).toBe('totp');
    expect(JSON.parse(opened!.value)).toEqual({ secret: 'JBSWY3DPEHPK3PXPJBSWY3DP', digits: 8, period: 30, algorithm: 'SHA1' });
    expect(readFileSync(path, 'utf8')).not.toContain('JBSWY3DP');
    await expect(store.set('acme', 'bad', ['example.com'], 'not base32!', 'totp')).rejects.toThrow(/not base32/);
    const file = JSON.parse(readFileSync(path, 'utf8'));
    delete file.entries[0].kind;
    writeFileSync(path, JSON.stringify(file));
    await expect(store.open('acme', 'otp')).rejects.toThrow(VaultTamperedError);
  });
});

describe('secrets in actions and answers', () => {
  it('names each placeholder of type and fill once', () => {
    expect(secretNames({ kind: 'type', ref: 'e1', text: '{{secret:pw}} and {{secret:pw}} {{secret:otp.2}} {{totp:otp.2}}' })).toEqual([
      { name: 'pw', kind: 'secret' },
      { name: 'otp.2', kind: 'secret' },
      { name: 'otp.2', kind: 'totp' },
    ]);
    expect(
      secretNames({
        kind: 'fill',
        fields: [
          { ref: 'e1', value: '{{secret:a}}' },
          { ref: 'e2', value: true },
        ],
      }),
    ).toEqual([{ name: 'a', kind: 'secret' }]);
    expect(secretNames({ kind: 'click', ref: 'e1' })).toEqual([]);
  });

  it('shows a typed value by name, as typed, in a URL, a form body, JSON and base64', () => {
    const secrets = new BrowserSecrets();
    expect(secrets.holding).toBe(false);
    const value = 'p@ss word!&é';
    secrets.remember('pw', value);
    for (const form of [
      value,
      encodeURIComponent(value),
      new URLSearchParams([['', value]]).toString().slice(1),
      JSON.stringify(value).slice(1, -1),
      Buffer.from(value).toString('base64'),
    ])
      expect(secrets.redact(`before ${form} after`)).toBe('before [secret pw] after');
    expect(secrets.redactDeep({ a: [`x${value}`], b: 3 })).toEqual({ a: ['x[secret pw]'], b: 3 });
    const body = Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from(`password=${new URLSearchParams([['', value]]).toString().slice(1)}`)]).toString(
      'base64',
    );
    expect(Buffer.from(secrets.redactBody(body), 'base64')).toEqual(Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from('password=[secret pw]')]));
    expect(secrets.holding).toBe(true);
    expect(secrets.names).toEqual(['pw']);
  });

  it("redacts keys as well as values, a body byte-wise, and leaves a picture's bytes whole", () => {
    const secrets = new BrowserSecrets();
    const value = 'Zq9-hunter2';
    secrets.remember('pw', value);
    const picture = Buffer.from(`....${value}....`).toString('base64');
    const answer = {
      tabs: [{ title: `Hi ${value}`, url: `https://a.test/#${encodeURIComponent(value)}` }],
      items: { [value]: 'x' },
      shot: { mimeType: 'image/png', data: picture },
      body: { base64: Buffer.from(`pw=${value}`).toString('base64') },
    };
    expect(secrets.redactDeep(answer)).toEqual({
      tabs: [{ title: 'Hi [secret pw]', url: 'https://a.test/#[secret pw]' }],
      items: { '[secret pw]': 'x' },
      shot: { mimeType: 'image/png', data: picture },
      body: { base64: Buffer.from('pw=[secret pw]').toString('base64') },
    });
  });

  it('an API wrapped with a redaction redacts what every method answers and rejects with, nested APIs too', async () => {
    const secrets = new BrowserSecrets();
    secrets.remember('pw', 'hunter2-x');
    const api = {
      tabs: async () => [{ title: 'hunter2-x' }],
      now: () => 'sync hunter2-x',
      fails: async () => {
        throw new Error('no hunter2-x here');
      },
      toolbox: { items: async () => ({ 'hunter2-x': 1 }) },
      other: () => api,
    };
    const wrapped = atTheEdge(api, { redact: (answer) => secrets.redactDeep(answer) });
    expect(await wrapped.tabs()).toEqual([{ title: '[secret pw]' }]);
    expect(wrapped.now()).toBe('sync [secret pw]');
    await expect(wrapped.fails()).rejects.toThrow('no [secret pw] here');
    expect(await wrapped.toolbox.items()).toEqual({ '[secret pw]': 1 });
    expect(wrapped.other()).toBe(api);
  });
});
