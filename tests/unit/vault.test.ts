import { createCipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CookieVault, FileVaultRows, underSite, VaultTamperedError } from '../../relay/src/vault/cookie-vault.js';
import { FileRevocations, Grants } from '../../relay/src/vault/grants.js';
import { tempDirs } from '../harness/temp-dirs.js';

/** The vault's cipher and the grants' signatures on their own; e2e/sessions.test.ts shows them in use. */

const dirs = tempDirs('clawd-vault-');
const cookie = (name: string, value: string, domain: string) => ({ name, value, domain, path: '/' });
/** A vault whose sealed entries are in a file. */
const vaultAt = (path: string, key: Buffer) => new CookieVault(new FileVaultRows(path), key);

describe('CookieVault', () => {
  it('keeps cookies per tenant and domain, encrypted, and lists them without values', async () => {
    const path = join(dirs(), 'cookies.json');
    const vault = vaultAt(path, randomBytes(32));
    await vault.save('acme', '.Example.com', [cookie('sid', 'value-one-secret', '.example.com'), cookie('pref', 'dark', 'www.example.com')]);
    await vault.save('other', 'example.com', [cookie('sid', 'value-two-secret', 'example.com')]);
    expect((await vault.load('acme', ['example.com'])).cookies.map((c) => c.value)).toEqual(['value-one-secret', 'dark']);
    expect(await vault.load('acme', ['elsewhere.test'])).toEqual({ cookies: [], origins: [], passkeys: [] });
    expect(await vault.list()).toEqual([
      { tenant: 'acme', domain: 'example.com', savedAt: expect.any(String), cookies: 2 },
      { tenant: 'other', domain: 'example.com', savedAt: expect.any(String), cookies: 1 },
    ]);
    const bytes = readFileSync(path, 'utf8');
    for (const secret of ['value-one-secret', 'value-two-secret', 'dark', 'sid']) expect(bytes).not.toContain(secret);
    expect((await vault.forget('acme')).map((e) => e.domain)).toEqual(['example.com']);
    expect((await vault.list()).map((e) => e.tenant)).toEqual(['other']);
  });

  it('refuses a changed byte, an entry moved to another tenant, another key, and a damaged file', async () => {
    const path = join(dirs(), 'cookies.json');
    const key = randomBytes(32);
    await vaultAt(path, key).save('acme', 'example.com', [cookie('sid', 'x', 'example.com')]);
    const original = readFileSync(path, 'utf8');
    const file = JSON.parse(original) as { entries: Array<{ tenant: string; tag: string }> };

    file.entries[0].tenant = 'mallory';
    writeFileSync(path, JSON.stringify(file));
    await expect(vaultAt(path, key).load('mallory', ['example.com'])).rejects.toThrow(VaultTamperedError);

    const tag = Buffer.from(JSON.parse(original).entries[0].tag, 'base64');
    tag[0] ^= 1;
    writeFileSync(path, original.replace(JSON.parse(original).entries[0].tag, tag.toString('base64')));
    await expect(vaultAt(path, key).load('acme', ['example.com'])).rejects.toThrow(/failed authentication/);

    writeFileSync(path, original);
    await expect(vaultAt(path, randomBytes(32)).load('acme', ['example.com'])).rejects.toThrow(VaultTamperedError);
    writeFileSync(path, original.slice(0, 40));
    await expect(vaultAt(path, key).list()).rejects.toThrow(/not the JSON it should be/);
  });

  it("keeps a domain's origin storage with its cookies, encrypted alike, and opens entries written before it did", async () => {
    const path = join(dirs(), 'cookies.json');
    const key = randomBytes(32);
    const vault = vaultAt(path, key);
    const origins = [
      { origin: 'https://app.example.com', localStorage: [{ name: 'token', value: 'ls-secret-value' }], indexedDB: [{ name: 'db', version: 1, stores: [] }] },
      { origin: 'https://elsewhere.test', localStorage: [{ name: 'x', value: 'not-ours' }] },
    ];
    const saved = await vault.saveFromBrowser(
      'acme',
      ['example.com'],
      [{ ...cookie('sid', 'c', '.example.com'), expires: -1, httpOnly: true, secure: true, sameSite: 'Lax' }],
      origins,
    );
    expect(saved).toEqual([{ domain: 'example.com', cookies: 1, origins: 1 }]);
    expect((await vault.load('acme', ['example.com'])).origins).toEqual([origins[0]]);
    expect(await vault.list()).toEqual([{ tenant: 'acme', domain: 'example.com', savedAt: expect.any(String), cookies: 1, origins: 1 }]);
    expect(readFileSync(path, 'utf8')).not.toContain('ls-secret-value');

    // An entry of the earlier format: the plaintext was the cookie list alone.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from('clawd-vault-v1\0old\0example.org'));
    const data = Buffer.concat([cipher.update(JSON.stringify([cookie('sid', 'old-value', 'example.org')]), 'utf8'), cipher.final()]);
    const file = JSON.parse(readFileSync(path, 'utf8'));
    file.entries.push({
      tenant: 'old',
      domain: 'example.org',
      savedAt: new Date().toISOString(),
      count: 1,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    });
    writeFileSync(path, JSON.stringify(file));
    expect(await vault.load('old', ['example.org'])).toEqual({ cookies: [cookie('sid', 'old-value', 'example.org')], origins: [], passkeys: [] });
  });

  it('matches cookies to sites, subdomains included', () => {
    expect(underSite('.example.com', 'example.com')).toBe(true);
    expect(underSite('www.example.com', 'example.com')).toBe(true);
    expect(underSite('badexample.com', 'example.com')).toBe(false);
  });
});

describe('Grants', () => {
  it('verifies what it issued and says why it refuses the rest', async () => {
    let now = 1_000_000;
    const grants = new Grants(randomBytes(32), new FileRevocations(join(dirs(), 'revoked.json')), () => now);
    const { token, grant } = grants.issue({ tenant: 'acme', domains: ['Example.com', 'example.com'], ttlMs: 60_000 });
    expect(grant.allowed_domains).toEqual(['example.com']);
    expect((await grants.verify(token, { tenant: 'acme', domains: ['example.com'] })).id).toBe(grant.id);
    await expect(grants.verify(token, { tenant: 'acme', domains: ['other.test'] })).rejects.toThrow(/other\.test is outside the grant/);
    await expect(grants.verify(token, { tenant: 'beta', domains: [] })).rejects.toThrow(/for tenant "acme", not "beta"/);
    await expect(new Grants(randomBytes(32), new FileRevocations(join(dirs(), 'r.json'))).verify(token, { tenant: 'acme', domains: [] })).rejects.toThrow(
      /signature does not match/,
    );
    await expect(grants.verify('garbage', { tenant: 'acme', domains: [] })).rejects.toThrow(/not a grant token/);
    now += 60_001;
    await expect(grants.verify(token, { tenant: 'acme', domains: [] })).rejects.toThrow(/expired at/);
    now -= 60_001;
    await grants.revoke(grant.id);
    await expect(grants.verify(token, { tenant: 'acme', domains: [] })).rejects.toThrow(/was revoked/);
  });
});
