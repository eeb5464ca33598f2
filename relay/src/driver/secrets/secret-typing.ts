import type { Action } from '../../api/schemas.js';
import type { SecretKind } from '../../api/session-responses.js';
import { ForbiddenError } from '../../errors.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * `{{secret:NAME}}` and `{{totp:NAME}}` in what `type` and `fill` type
 * (spec §15, §22): the server puts the value in (a one-time code seed's
 * current code, made now), and only where the field's frame is on a domain
 * the secret is bound to. Every field is checked before anything is typed,
 * so a refusal types nothing. The agent never holds the value; the browser
 * then redacts it from everything read back (browser-secrets.ts).
 */

const PLACEHOLDER = /\{\{(secret|totp):([A-Za-z0-9_.-]{1,64})\}\}/g;

export interface OpenedSecret {
  name: string;
  /** What is typed: the value, or the one-time code made from the seed now. */
  value: string;
  domains: string[];
}
/** Opens a secret the caller may use as `kind`, or throws saying why not (not lent to this session, none by that name, not of that kind). */
export type SecretOpener = (name: string, kind: SecretKind) => Promise<OpenedSecret>;

/** The secrets an action names, in order, each once, with how each is typed. */
export function secretNames(action: Action): Array<{ name: string; kind: SecretKind }> {
  const texts =
    action.kind === 'type' ? [action.text] : action.kind === 'fill' ? action.fields.map((field) => (typeof field.value === 'string' ? field.value : '')) : [];
  const named = new Map<string, { name: string; kind: SecretKind }>();
  for (const text of texts) for (const [placeholder, kind, name] of text.matchAll(PLACEHOLDER)) named.set(placeholder, { name, kind: kind as SecretKind });
  return [...named.values()];
}

const onDomain = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** The action with its placeholders replaced, and the secrets it types, each with the host it is typed on. */
export async function withSecrets(
  tab: DriverTab,
  action: Action,
  open: SecretOpener,
): Promise<{ action: Action; typed: Array<OpenedSecret & { host: string; kind: SecretKind }> }> {
  const typed: Array<OpenedSecret & { host: string; kind: SecretKind }> = [];
  const fill = async (ref: string, text: string): Promise<string> => {
    const placeholders = [...text.matchAll(PLACEHOLDER)];
    if (!placeholders.length) return text;
    const frame = await (await tab.element(ref)).ownerFrame();
    const host = frame ? new URL(frame.url()).hostname : '';
    let filled = text;
    // Each placeholder once: the same secret twice in one text is typed (and audited) as one use.
    for (const [placeholder, kind, name] of new Map(placeholders.map((match) => [match[0], match])).values()) {
      const secret = await open(name, kind as SecretKind);
      if (!secret.domains.some((domain) => onDomain(host, domain)))
        throw new ForbiddenError(
          `Secret ${name} may be typed on ${secret.domains.join(', ')} only, not on ${host || 'a page without a host'}: nothing was typed`,
        );
      typed.push({ ...secret, host, kind: kind as SecretKind });
      filled = filled.split(placeholder).join(secret.value);
    }
    return filled;
  };
  if (action.kind === 'type') return { action: { ...action, text: await fill(action.ref, action.text) }, typed };
  if (action.kind === 'fill') {
    const fields = [];
    for (const field of action.fields) fields.push(typeof field.value === 'string' ? { ...field, value: await fill(field.ref, field.value) } : field);
    return { action: { ...action, fields }, typed };
  }
  return { action, typed };
}
