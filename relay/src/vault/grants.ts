import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { Grant } from '../api/session-responses.js';
import { ForbiddenError } from '../errors.js';
import { cookieSite } from './cookie-vault.js';

/**
 * Grant tokens (spec §11): what lets an `operator` session act logged-in.
 * `base64url(payload).base64url(HMAC-SHA256(payload))` under the grant key,
 * which is not the vault key. A grant names a tenant, the domains whose
 * cookies it lends, when it expires, and its id (for revocation and the
 * audit), and the named secrets it lets a session type. Verification says
 * exactly why a grant is refused.
 */

const Payload = z.strictObject({
  id: z.string(),
  tenant: z.string().min(1),
  allowed_domains: z.array(z.string().min(1)).min(1),
  expires_at: z.number().int(),
  origin_session_id: z.string().optional(),
  allowed_secrets: z.array(z.string().min(1)).optional(),
}) satisfies z.ZodType<Grant>;
export type { Grant };

/** Where revoked grant ids are kept: a file of this home, or the fleet's store (store/postgres-revocations.ts), where every server sees a revocation at once. */
export interface Revocations {
  has(id: string): Promise<boolean>;
  /** Answers once the revocation is kept. */
  add(id: string): Promise<void>;
}

/** Revoked grant ids in a file of this home. */
export class FileRevocations implements Revocations {
  constructor(private readonly path: string) {}

  async has(id: string): Promise<boolean> {
    return this.all().includes(id);
  }

  async add(id: string): Promise<void> {
    const revoked = this.all();
    if (revoked.includes(id)) return;
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    writeFileSync(this.path, JSON.stringify([...revoked, id]), { mode: 0o600 });
  }

  private all(): string[] {
    if (!existsSync(this.path)) return [];
    try {
      return z.array(z.string()).parse(JSON.parse(readFileSync(this.path, 'utf8')));
    } catch {
      return [];
    }
  }
}

export class Grants {
  constructor(
    private readonly key: Buffer,
    /** Revoked grant ids. */
    private readonly revocations: Revocations,
    private readonly now: () => number = Date.now,
  ) {}

  issue(options: { tenant: string; domains: string[]; ttlMs: number; originSessionId?: string; secrets?: string[] }): { token: string; grant: Grant } {
    const grant: Grant = {
      id: randomUUID(),
      tenant: options.tenant,
      allowed_domains: [...new Set(options.domains.map(cookieSite))],
      expires_at: this.now() + options.ttlMs,
      ...(options.originSessionId ? { origin_session_id: options.originSessionId } : {}),
      ...(options.secrets?.length ? { allowed_secrets: [...new Set(options.secrets)] } : {}),
    };
    const body = Buffer.from(JSON.stringify(grant)).toString('base64url');
    return { token: `${body}.${this.sign(body)}`, grant };
  }

  /** The grant, or a 403 saying why not (malformed, tampered, expired, revoked, another tenant, a domain outside it). */
  async verify(token: string, expect: { tenant: string; domains: string[] }): Promise<Grant> {
    const [body, signature, extra] = token.split('.');
    if (!body || !signature || extra !== undefined) throw new ForbiddenError('Grant refused: it is not a grant token');
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      throw new ForbiddenError('Grant refused: its signature does not match (tampered, or issued by another key)');
    let grant: Grant;
    try {
      grant = Payload.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
    } catch {
      throw new ForbiddenError('Grant refused: its payload is not a grant');
    }
    if (grant.expires_at <= this.now()) throw new ForbiddenError(`Grant refused: it expired at ${new Date(grant.expires_at).toISOString()}`);
    if (await this.revocations.has(grant.id)) throw new ForbiddenError(`Grant refused: grant ${grant.id} was revoked`);
    if (grant.tenant !== expect.tenant)
      throw new ForbiddenError(`Grant refused: it is for tenant ${JSON.stringify(grant.tenant)}, not ${JSON.stringify(expect.tenant)}`);
    const outside = expect.domains.map(cookieSite).filter((domain) => !grant.allowed_domains.includes(domain));
    if (outside.length)
      throw new ForbiddenError(
        `Grant refused: ${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} outside the grant (${grant.allowed_domains.join(', ')})`,
      );
    return grant;
  }

  revoke(id: string): Promise<void> {
    return this.revocations.add(id);
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
