import type { Action } from '../api/schemas.js';
import { ForbiddenError } from '../errors.js';
import type { DriverTab } from './driver-tab.js';

/**
 * `{{secret:NAME}}` in what `type` and `fill` type (spec §15): the server
 * puts the value in, and only where the field's frame is on a domain the
 * secret is bound to. Every field is checked before anything is typed, so a
 * refusal types nothing. The agent never holds the value; the tab then
 * redacts it from everything read back (tab-secrets.ts).
 */

export const SECRET_PLACEHOLDER = /\{\{secret:([A-Za-z0-9_.-]{1,64})\}\}/g;

export interface OpenedSecret {
  name: string;
  value: string;
  domains: string[];
}
/** Opens a secret the caller may use, or throws saying why not (not lent to this session, none by that name). */
export type SecretOpener = (name: string) => Promise<OpenedSecret>;

/** The secrets an action names, in order, each once. */
export function secretNames(action: Action): string[] {
  const texts = action.kind === 'type' ? [action.text] : action.kind === 'fill' ? action.fields.map((field) => (typeof field.value === 'string' ? field.value : '')) : [];
  return [...new Set(texts.flatMap((text) => [...text.matchAll(SECRET_PLACEHOLDER)].map((match) => match[1])))];
}

const onDomain = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** The action with its placeholders replaced, and the secrets it types, each with the host it is typed on. */
export async function withSecrets(tab: DriverTab, action: Action, open: SecretOpener): Promise<{ action: Action; typed: Array<OpenedSecret & { host: string }> }> {
  const typed: Array<OpenedSecret & { host: string }> = [];
  const fill = async (ref: string, text: string): Promise<string> => {
    const names = [...text.matchAll(SECRET_PLACEHOLDER)].map((match) => match[1]);
    if (!names.length) return text;
    const frame = await (await tab.element(ref)).ownerFrame();
    const host = frame ? new URL(frame.url()).hostname : '';
    let filled = text;
    for (const name of names) {
      const secret = await open(name);
      if (!secret.domains.some((domain) => onDomain(host, domain)))
        throw new ForbiddenError(`Secret ${name} may be typed on ${secret.domains.join(', ')} only, not on ${host || 'a page without a host'}: nothing was typed`);
      typed.push({ ...secret, host });
      filled = filled.split(`{{secret:${name}}}`).join(secret.value);
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
