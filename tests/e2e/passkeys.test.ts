import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { waitFor } from '../harness/chromium.js';
import { refOf } from '../harness/refs.js';
import { startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Passkeys without a person: a site registers a passkey in a refresh session
 * (the person logging in once), clawd keeps it sealed in the vault with the
 * site's cookies, and two operator sessions lent the site sign in with it,
 * the site's server checking each challenge, the origin, the relying party,
 * the signature and that the credential is the one registered
 * (@simplewebauthn/server). A clean session has no passkey; the session's
 * key reads the storage state's passkeys without their private key, and
 * the key appears in no answer, audit line or vault file.
 */

const TENANT = 'acme-passkeys';
let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
/** WebAuthn takes a domain, not an address: the site is reached as localhost. */
let origin: string;
let challenge = '';
let registered: WebAuthnCredential | undefined;
/** Each sign-in the site's server accepted: the credential and the counter it reported. */
const signIns: Array<{ credentialId: string; counter: number }> = [];

const PAGE = (title: string, button: string, run: string) => `<!doctype html><title>${title}</title>
  <button id="go">${button}</button>
  <script>
    document.getElementById('go').addEventListener('click', async () => {
      try { ${run} } catch (error) { document.title = 'No passkey: ' + error.name; }
    });
  </script>`;
const REGISTER = PAGE(
  'Register',
  'Create a passkey',
  `
  const options = await (await fetch('/register/options')).json();
  const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
  const verified = await fetch('/register/verify', { method: 'POST', body: JSON.stringify(credential.toJSON()) });
  document.title = verified.ok ? 'Passkey saved' : 'Passkey refused';`,
);
const SIGN_IN = PAGE(
  'Sign in',
  'Sign in with a passkey',
  `
  const options = await (await fetch('/login/options')).json();
  const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options), signal: AbortSignal.timeout(4000) });
  const verified = await fetch('/login/verify', { method: 'POST', body: JSON.stringify(credential.toJSON()) });
  document.title = verified.ok ? 'Signed in' : 'Sign-in refused';`,
);

beforeAll(async () => {
  env = await startControlEnv();
  site = await startTestSite((request, response, url) => {
    const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const body = () =>
      new Promise<string>((resolve) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => resolve(Buffer.concat(chunks).toString()));
      });
    const run = async () => {
      if (url.pathname === '/register/options') {
        const options = await generateRegistrationOptions({
          rpName: 'Acme',
          rpID: 'localhost',
          userName: 'alice',
          attestationType: 'none',
          authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        });
        challenge = options.challenge;
        return json(200, options);
      }
      if (url.pathname === '/register/verify') {
        const verification = await verifyRegistrationResponse({
          response: JSON.parse(await body()),
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: 'localhost',
          requireUserVerification: true,
        });
        if (!verification.verified) return json(400, { error: 'not verified' });
        registered = verification.registrationInfo.credential;
        return json(200, { ok: true });
      }
      if (url.pathname === '/login/options') {
        const options = await generateAuthenticationOptions({ rpID: 'localhost', userVerification: 'required' });
        challenge = options.challenge;
        return json(200, options);
      }
      if (url.pathname === '/login/verify') {
        const answer = JSON.parse(await body()) as { id: string };
        // Only the credential this site registered signs in.
        if (!registered || answer.id !== registered.id) return json(401, { error: 'unknown credential' });
        const verification = await verifyAuthenticationResponse({
          response: answer as never,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: 'localhost',
          credential: registered,
          requireUserVerification: true,
        });
        if (!verification.verified) return json(401, { error: 'not verified' });
        signIns.push({ credentialId: verification.authenticationInfo.credentialID, counter: verification.authenticationInfo.newCounter });
        return json(200, { ok: true });
      }
      response.writeHead(200, { 'content-type': 'text/html' }).end(url.pathname === '/register' ? REGISTER : SIGN_IN);
    };
    run().catch((error: Error) => json(400, { error: error.message }));
  });
  origin = `http://localhost:${site.port}`;
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

const base = () => `http://127.0.0.1:${env.server.control.port}`;

/** Presses the page's one button (as whoever `client` is) and answers the title it ends on. */
async function press(client: BrowserClient, page: string, waitingFor: RegExp): Promise<{ title: string; targetId: string }> {
  const tab = await client.openTab(`${origin}${page}`);
  await client.click(refOf((await client.snapshot({ targetId: tab.targetId })).text, /button/), { targetId: tab.targetId });
  let title = '';
  await waitFor(async () => waitingFor.test((title = (await client.tabs()).find((each) => each.targetId === tab.targetId)!.title)), {
    timeoutMs: 10_000,
    message: `the page never said ${waitingFor}`,
  });
  return { title, targetId: tab.targetId };
}

/** An operator session lent the site, as its key's holder (the agent) drives it. */
async function lentSession() {
  const { token } = await env.client('clawd').issueGrant({ tenant: TENANT, domains: ['localhost'], ttl: 600 });
  const session = await env.client('clawd').openSession({ credential_mode: 'operator', tenant: TENANT, grant: token });
  return { session, agent: new BrowserClient({ baseUrl: base(), token: session.key! }) };
}

describe('passkeys', () => {
  let privateKey = '';

  it('registered by the site in a refresh session are kept sealed in the vault with its cookies', async () => {
    const refresh = await env.client('clawd').vaultRefresh({ tenant: TENANT, domains: ['localhost'] });
    // The person, in the refresh session: the site registers a passkey; clawd's authenticator holds it.
    expect((await press(env.client(refresh.profile), '/register', /Passkey|No passkey/)).title).toBe('Passkey saved');
    const held = (await env.client(refresh.profile).toolbox.storageState({})).credentials!;
    expect(held).toEqual([expect.objectContaining({ id: registered!.id, rpId: 'localhost', signCount: expect.any(Number) })]);
    privateKey = held[0].privateKey;
    expect(privateKey.length).toBeGreaterThan(40);
    expect((await env.client('clawd').vaultRefreshDone(refresh.id)).saved).toEqual([{ domain: 'localhost', cookies: 0, origins: 0, passkeys: 1 }]);
    expect((await env.client('clawd').vault(TENANT)).entries).toEqual([expect.objectContaining({ domain: 'localhost', passkeys: 1 })]);
    expect(readFileSync(join(env.home, 'vault', 'cookies.json'), 'utf8')).not.toContain(privateKey.slice(0, 40));
  });

  it('sign two operator sessions in without a person, the site checking challenge and credential', async () => {
    for (const round of [1, 2]) {
      const { session, agent } = await lentSession();
      expect(session.injectedPasskeys).toBe(1);
      expect((await press(agent, '/login', /Signed in|refused|No passkey/)).title, `session ${round}`).toBe('Signed in');
      expect(signIns.at(-1)!.credentialId).toBe(registered!.id);
      // The session's key sees which passkeys its browser holds, never their keys; the token's holder gets the key.
      const shown = await agent.toolbox.storageState({});
      expect(shown.credentials).toEqual([expect.objectContaining({ id: registered!.id, rpId: 'localhost', privateKey: '' })]);
      expect((await env.client(session.profile).toolbox.storageState({})).credentials![0].privateKey).not.toBe('');
      const inject = (await env.client('clawd').audit({ session: session.id, event: 'inject' })).entries[0];
      expect(inject.detail).toContain('1 passkeys of localhost');
      expect(JSON.stringify([session, shown, inject])).not.toContain(privateKey.slice(0, 40));
      await env.client('clawd').closeSession(session.id);
    }
    expect(signIns).toHaveLength(2);
    // The signature counter moves on, as a real authenticator's does.
    expect(signIns[1].counter).toBeGreaterThanOrEqual(signIns[0].counter);
  });

  it('are not in a session the grant does not lend them to', async () => {
    const clean = await env.client('clawd').openSession({ credential_mode: 'clean' });
    const agent = new BrowserClient({ baseUrl: base(), token: clean.key! });
    expect((await press(agent, '/login', /Signed in|refused|No passkey/)).title).toMatch(/^No passkey/);
    expect((await agent.toolbox.storageState({})).credentials).toBeUndefined();
    await env.client('clawd').closeSession(clean.id);
    expect(signIns).toHaveLength(2);
  });
});
