import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { Protocol } from 'devtools-protocol';
import type { StorageCredential } from '../../api/toolbox-schemas.js';
import type { DriverTab } from '../driver-tab.js';
import { failureKind } from '../browser-failure.js';

/**
 * Passkeys held by clawd (spec §22): a virtual WebAuthn authenticator in
 * each tab of a browser (CDP's WebAuthn domain; Chrome keeps one per tab),
 * which answers the site's `navigator.credentials.create()` and `.get()` as
 * a platform authenticator would, with the person's presence and
 * verification taken as given. Chrome itself checks that the page's origin
 * may use each credential's relying party, so a passkey of one site is
 * never offered to another. A refresh session holds an empty one (what the
 * person registers is kept, for the vault); an operator session's holds the
 * passkeys its grant lends, in every tab before its first page.
 *
 * Why CDP's and not Playwright's `context.credentials`: that one replaces
 * `navigator.credentials` with a script in the page's own world, which the
 * page sees and can call; Chrome's authenticator lives outside the page,
 * and its credentials are read only with its id, which never leaves this
 * server.
 */

/** A passkey as CDP holds it (base64 id, PKCS#8 private key), which is how the vault keeps it. */
export type Passkey = Protocol.WebAuthn.Credential;

const AUTHENTICATOR: Protocol.WebAuthn.VirtualAuthenticatorOptions = {
  protocol: 'ctap2',
  ctap2Version: 'ctap2_1',
  transport: 'internal',
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
};

export class VirtualAuthenticators {
  /** Set once the browser holds passkeys: every tab gets an authenticator with them. */
  private lent: Passkey[] | undefined;
  private readonly installed = new WeakMap<DriverTab, Promise<string | undefined>>();
  private readonly tabs = new Set<DriverTab>();

  /** Whether this browser's tabs have an authenticator. */
  get holding(): boolean {
    return this.lent !== undefined;
  }

  /** From now on every tab (those open, and each new one before its first page) holds `passkeys`, and keeps what sites register. */
  async hold(passkeys: Passkey[], openTabs: DriverTab[]): Promise<void> {
    this.lent = [...(this.lent ?? []), ...passkeys];
    await Promise.all(openTabs.map((tab) => this.install(tab, passkeys)));
  }

  /** A tab the driver sees for the first time: its authenticator goes on before its first navigation (settle). */
  onTab(tab: DriverTab): void {
    if (this.lent) void this.install(tab, this.lent);
  }

  /**
   * Waits until the tab's authenticator is in place and Chrome still has it: put on (again) when the tab has
   * none, such as a tab the browser had before it held passkeys that `hold` was not given.
   */
  async settle(tab: DriverTab): Promise<void> {
    if (!this.lent) return;
    for (let tries = 1; ; tries++) {
      const id = await (this.installed.get(tab) ?? this.install(tab, this.lent));
      if (id && (await this.answers(tab, id))) return;
      if (tries >= 5) return;
      // Chrome turns a tab's environment off without an error: seen just after a new tab opened, most likely
      // when another CDP session of the tab detaches (a session's WebAuthn handler disables the environment as
      // it goes; clawd opens short-lived ones, e.g. to learn a tab's target id). Put it on again.
      this.installed.delete(tab);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Whether Chrome still has the tab's authenticator. */
  private async answers(tab: DriverTab, authenticatorId: string): Promise<boolean> {
    return (await tab.cdp()).send('WebAuthn.getCredentials', { authenticatorId }).then(
      () => true,
      () => false,
    );
  }

  /** Every passkey the browser holds now, each once (its highest signature count): those lent and those its sites registered. */
  async held(): Promise<Passkey[]> {
    const byId = new Map<string, Passkey>();
    for (const passkey of this.lent ?? []) byId.set(passkey.credentialId, passkey);
    for (const tab of this.tabs) {
      const id = await this.installed.get(tab);
      if (!id || tab.page.isClosed()) continue;
      const { credentials } = (await (
        await tab.cdp()
      )
        .send('WebAuthn.getCredentials', { authenticatorId: id })
        .catch(() => ({ credentials: [] }))) as Protocol.WebAuthn.GetCredentialsResponse;
      for (const credential of credentials)
        if ((byId.get(credential.credentialId)?.signCount ?? -1) < credential.signCount) byId.set(credential.credentialId, credential);
    }
    return [...byId.values()];
  }

  private install(tab: DriverTab, passkeys: Passkey[]): Promise<string | undefined> {
    const before = this.installed.get(tab);
    const installing = (async () => {
      // The target id is asked through a session of its own that detaches at once (driver-tab.ts): asked first, not after.
      await tab.targetId();
      const cdp = await tab.cdp();
      const id = (await before) ?? (await this.addAuthenticator(tab));
      for (const credential of passkeys) await cdp.send('WebAuthn.addCredential', { authenticatorId: id, credential });
      return id;
    })().catch(() => undefined);
    this.installed.set(tab, installing);
    this.tabs.add(tab);
    tab.page.once('close', () => this.tabs.delete(tab));
    return installing;
  }

  private async addAuthenticator(tab: DriverTab): Promise<string> {
    const cdp = await tab.cdp();
    for (let tries = 1; ; tries++) {
      await cdp.send('WebAuthn.enable', { enableUI: false });
      try {
        const { authenticatorId } = (await cdp.send('WebAuthn.addVirtualAuthenticator', {
          options: AUTHENTICATOR,
        })) as Protocol.WebAuthn.AddVirtualAuthenticatorResponse;
        return authenticatorId;
      } catch (error) {
        // A new tab's first document replaces its frame right after it opens, and Chrome forgets the enable with it: enable again.
        if (tries >= 5 || failureKind(error) !== 'domain-disabled') throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
}

/** A passkey in Playwright's storage-state shape (base64url; its public key made from the private one), loadable by `newContext({storageState})`. */
export function asStorageCredential(passkey: Passkey): StorageCredential {
  const privateKey = createPrivateKey({ key: Buffer.from(passkey.privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  return {
    id: Buffer.from(passkey.credentialId, 'base64').toString('base64url'),
    rpId: passkey.rpId ?? '',
    userHandle: Buffer.from(passkey.userHandle ?? '', 'base64').toString('base64url'),
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url'),
    publicKey: createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).toString('base64url'),
    signCount: passkey.signCount,
  };
}

/** A storage state's passkey as the authenticator takes it. */
export function fromStorageCredential(credential: StorageCredential): Passkey {
  return {
    credentialId: Buffer.from(credential.id, 'base64url').toString('base64'),
    isResidentCredential: true,
    rpId: credential.rpId,
    privateKey: Buffer.from(credential.privateKey, 'base64url').toString('base64'),
    userHandle: Buffer.from(credential.userHandle, 'base64url').toString('base64'),
    signCount: credential.signCount ?? 0,
  };
}
