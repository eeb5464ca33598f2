/**
 * The secrets typed into one browser (spec §15), and the rule that keeps
 * them from the agent: a caller's code and a lent secret never share a
 * browser. A page may copy a value anywhere (its title, its URL, storage, a
 * cookie's name, another tab of its origin, a transform no redaction
 * recognises), and so may code of the caller's that runs beside it: a
 * listener planted by an `evaluate` before the typing hears every keystroke
 * after it. So the wall is not redaction but what a caller may run and read,
 * both ways round:
 * - a browser where code of the caller's ran (an `evaluate` in any tab, an
 *   init script, a network route that fulfils requests, a raw CDP client)
 *   takes no secret for the rest of its life (`callerCodeRan`, `unfitError`):
 *   whatever it left behind could read what is typed;
 * - once a secret is typed into a browser, for the rest of its life nothing
 *   of the caller's runs in its pages (no `evaluate`, no init script or
 *   network route that rewrites a page added, no raw CDP client joins), its
 *   storage is not read (items, state, cookies), its console is not read
 *   (a page may log what was typed, in any form), and no trace is recorded
 *   (a trace keeps the DOM whole);
 * and, beside that wall, every answer read from the browser, whichever tab,
 * title, URL or name it comes from, shows `[secret NAME]` where a typed
 * value stood as typed, URL- or form-encoded, JSON-escaped or in base64
 * (for a site that echoes a value, e.g. a user name in its URL).
 *
 * Not caller code: what the server itself puts in (a vault's cookies and
 * storage at a session's start, passkeys), the page's own scripts and tools
 * (page tools are called, not written, by the caller), and acts (clicks,
 * typing, a routine's steps).
 */

import { ConflictError } from '../../errors.js';

/** A typed value in each form it travels in, each with what it is shown as instead. */
interface Replacement {
  name: string;
  forms: string[];
  shownAs: string;
}

export class BrowserSecrets {
  /** By value: each typed value's forms, made once when it is typed (redaction runs on every answer). */
  private readonly typed = new Map<string, Replacement>();
  /** What of the caller's ran in this browser, first of each kind: it takes no secret. */
  private readonly callerCode: string[] = [];

  /** A secret has been typed into this browser: the rule above holds from then on. */
  get holding(): boolean {
    return this.typed.size > 0;
  }

  /** The names typed here (for a refusal to name them). */
  get names(): string[] {
    return [...new Set([...this.typed.values()].map((replacement) => replacement.name))];
  }

  /** The one refusal of what a held secret forbids (`what`), naming the way on. */
  heldError(what: string): ConflictError {
    return new ConflictError(
      `A secret (${this.names.join(', ')}) was typed into this browser, so ${what} for the rest of its life: a script or a read could carry the secret out in any form. Work that needs it belongs in a browser no secret was typed into (a new task session)`,
    );
  }

  /**
   * Code of the caller's ran here (`what`: "evaluate", "an init script", …), or is about to: from now
   * on no secret is typed into this browser. Said before the code runs, so that no typing slips in between.
   */
  callerCodeRan(what: string): void {
    if (!this.callerCode.includes(what)) this.callerCode.push(what);
  }

  /** Why no secret may be typed here (code of the caller's ran in this browser), or undefined when one may. */
  unfitError(): ConflictError | undefined {
    if (!this.callerCode.length) return undefined;
    return new ConflictError(
      `Code of the caller's ran in this browser (${this.callerCode.join(', ')}), so no secret is typed into it for the rest of its life: what it left behind (a listener, a wrapped field) could read what is typed, in any form. Nothing was typed. Type secrets in a browser no code of the caller's ran in: open a fresh task session and type them there before any evaluate, init script, fulfilling route or raw CDP client`,
      { next: 'open-session' },
    );
  }

  remember(name: string, value: string): void {
    if (!value) return;
    const forms = [
      value,
      encodeURIComponent(value),
      new URLSearchParams([['', value]]).toString().slice(1),
      JSON.stringify(value).slice(1, -1),
      Buffer.from(value).toString('base64'),
    ];
    this.typed.set(value, { name, forms: [...new Set(forms)].filter(Boolean), shownAs: `[secret ${name}]` });
  }

  /** `text` with each typed value (in each of its forms) replaced by its name. */
  redact(text: string): string {
    return this.replaceForms(text, (form) => form);
  }

  /** A body (base64 of any bytes) with each typed value's UTF-8 bytes, in any of those forms, replaced by its name. */
  redactBody(base64: string): string {
    if (!this.typed.size) return base64;
    // latin1 maps bytes to characters one to one: binary survives, and a value is matched by its UTF-8 bytes.
    const bytes = Buffer.from(base64, 'base64').toString('latin1');
    return Buffer.from(
      this.replaceForms(bytes, (form) => Buffer.from(form, 'utf8').toString('latin1')),
      'latin1',
    ).toString('base64');
  }

  private replaceForms(text: string, asText: (form: string) => string): string {
    let shown = text;
    for (const { forms, shownAs } of this.typed.values()) for (const form of forms) shown = shown.split(asText(form)).join(asText(shownAs));
    return shown;
  }

  /**
   * An answer with every string in it redacted, keys too (a cookie or a
   * storage item may be named after a value). Only plain data is walked:
   * objects of other kinds (a Buffer, an API of functions) pass as they are.
   */
  redactDeep<T>(value: T): T {
    if (!this.typed.size) return value;
    const walk = (item: unknown): unknown => {
      if (typeof item === 'string') return this.redact(item);
      if (Array.isArray(item)) return item.map(walk);
      if (item && typeof item === 'object' && Object.getPrototypeOf(item) === Object.prototype)
        return Object.fromEntries(
          Object.entries(item).map(([key, field]) => [
            this.redact(key),
            binary(item, key) ? field : key === 'base64' && typeof field === 'string' ? this.redactBody(field) : walk(field),
          ]),
        );
      return item;
    };
    return walk(value) as T;
  }
}

/**
 * A capture's bytes (a screenshot's or a PDF's base64 `data`): pixels are not
 * text, and a short value's base64 would match by chance inside a large
 * picture and break it. (A body's `base64` is redacted byte-wise instead.)
 */
function binary(owner: object, key: string): boolean {
  return key === 'data' && ('mimeType' in owner || 'type' in owner);
}
