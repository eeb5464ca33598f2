import type { Page } from 'playwright-core';

/**
 * The secrets typed into one tab (spec §15), so that nothing read from the
 * tab carries them: snapshots, page text, act answers and diffs, console
 * messages, the network log and its bodies show `[secret NAME]` where the
 * value was. Kept for the tab's life (a page may copy a value anywhere).
 * `inDocument` is whether the current document was given one: until it
 * navigates away, scripts (`evaluate`) and traces are refused, since either
 * could carry the value out in a form no redaction recognises.
 */
/** A typed value in each form it travels in, each with what it is shown as instead. */
interface Replacement {
  /** As typed; in a URL; in a form body as browsers encode it; in JSON; in base64. */
  forms: string[];
  shownAs: string;
}

export class TabSecrets {
  /** By value: each typed value's forms, made once when it is typed (redaction runs on every answer of the tab). */
  private readonly typed = new Map<string, Replacement>();
  private holding = false;

  constructor(page: Page) {
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.holding = false;
    });
  }

  get inDocument(): boolean {
    return this.holding;
  }

  remember(name: string, value: string): void {
    if (!value) return;
    const forms = [value, encodeURIComponent(value), new URLSearchParams([['', value]]).toString().slice(1), JSON.stringify(value).slice(1, -1), Buffer.from(value).toString('base64')];
    this.typed.set(value, { forms: [...new Set(forms)].filter(Boolean), shownAs: `[secret ${name}]` });
    this.holding = true;
  }

  /** `text` with each typed value (as typed, URL-encoded, form-encoded, JSON-escaped, base64) replaced by its name. */
  redact(text: string): string {
    return this.replaceForms(text, (form) => form);
  }

  /** A body (base64 of any bytes) with each typed value's UTF-8 bytes, in any of those forms, replaced by its name. */
  redactBody(base64: string): string {
    if (!this.typed.size) return base64;
    // latin1 maps bytes to characters one to one: binary survives, and a value is matched by its UTF-8 bytes.
    const bytes = Buffer.from(base64, 'base64').toString('latin1');
    return Buffer.from(this.replaceForms(bytes, (form) => Buffer.from(form, 'utf8').toString('latin1')), 'latin1').toString('base64');
  }

  private replaceForms(text: string, asText: (form: string) => string): string {
    let shown = text;
    for (const { forms, shownAs } of this.typed.values()) for (const form of forms) shown = shown.split(asText(form)).join(asText(shownAs));
    return shown;
  }

  /** A JSON answer with every string in it redacted. */
  redactDeep<T>(value: T): T {
    if (!this.typed.size) return value;
    return JSON.parse(JSON.stringify(value), (_key, item: unknown) => (typeof item === 'string' ? this.redact(item) : item)) as T;
  }
}
