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
export class TabSecrets {
  private readonly typed = new Map<string, string>();
  private holding = false;

  constructor(page: Page) {
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.holding = false;
    });
  }

  get inDocument(): boolean {
    return this.holding;
  }

  get any(): boolean {
    return this.typed.size > 0;
  }

  remember(name: string, value: string): void {
    if (!value) return;
    this.typed.set(value, name);
    this.holding = true;
  }

  /** `text` with each typed value (as typed, URL-encoded, form-encoded, JSON-escaped, base64) replaced by its name. */
  redact(text: string): string {
    return this.replaceForms(text, (form) => form);
  }

  /** A body (base64 of any bytes) with each typed value's UTF-8 bytes, in any of those forms, replaced by its name. */
  redactBody(base64: string): string {
    // latin1 maps bytes to characters one to one: binary survives, and a value is matched by its UTF-8 bytes.
    const bytes = Buffer.from(base64, 'base64').toString('latin1');
    return Buffer.from(this.replaceForms(bytes, (form) => Buffer.from(form, 'utf8').toString('latin1')), 'latin1').toString('base64');
  }

  private replaceForms(text: string, asText: (form: string) => string): string {
    if (!this.typed.size) return text;
    let shown = text;
    for (const [value, name] of this.typed) {
      // As typed; in a URL; in a form body as browsers encode it; in JSON; in base64.
      const forms = [value, encodeURIComponent(value), new URLSearchParams([['', value]]).toString().slice(1), JSON.stringify(value).slice(1, -1), Buffer.from(value).toString('base64')];
      for (const form of new Set(forms)) if (form) shown = shown.split(asText(form)).join(asText(`[secret ${name}]`));
    }
    return shown;
  }

  /** A JSON answer with every string in it redacted. */
  redactDeep<T>(value: T): T {
    if (!this.typed.size) return value;
    return JSON.parse(JSON.stringify(value), (_key, item: unknown) => (typeof item === 'string' ? this.redact(item) : item)) as T;
  }
}
