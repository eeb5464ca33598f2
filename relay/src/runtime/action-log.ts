import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The action log (spec §12): one JSON line per action in
 * `$CLAWD_HOME/logs/actions.jsonl`, rotated by size (actions.1.jsonl … .3),
 * and the recent ones in memory for `GET /actions`.
 *
 * A record is built from named fields only, never from a request body, so
 * what was typed, prompt answers and cookie values cannot reach it; URLs are
 * logged without their query and fragment (they carry tokens).
 */

import type { ActionRecord, Actor, Outcome } from '../api/session-responses.js';
export type { ActionRecord, Actor, Outcome };

export interface ActionLogOptions {
  /** Rotate when the file passes this size. */
  maxBytes?: number;
  /** Rotated files kept. */
  keep?: number;
  /** Records kept in memory for GET /actions. */
  recent?: number;
}

export class ActionLog {
  private readonly path: string;
  private readonly memory: ActionRecord[] = [];
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly recentMax: number;

  constructor(
    private readonly dir: string,
    options: ActionLogOptions = {},
  ) {
    this.path = join(dir, 'actions.jsonl');
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.keep = options.keep ?? 3;
    this.recentMax = options.recent ?? 1000;
  }

  get file(): string {
    return this.path;
  }

  record(record: ActionRecord): void {
    const clean: ActionRecord = { ...record, ...(record.url ? { url: withoutQuery(record.url) } : {}) };
    this.memory.push(clean);
    if (this.memory.length > this.recentMax) this.memory.shift();
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.rotateIfFull();
      appendFileSync(this.path, `${JSON.stringify(clean)}\n`, { mode: 0o600 });
    } catch {
      // A full disk must not fail the action that was logged; memory still has it.
    }
  }

  /** Newest last. */
  recent(options: { limit?: number; profile?: string } = {}): ActionRecord[] {
    const matching = options.profile ? this.memory.filter((record) => record.profile === options.profile) : this.memory;
    return matching.slice(-(options.limit ?? 100));
  }

  private rotateIfFull(): void {
    if (!existsSync(this.path) || statSync(this.path).size < this.maxBytes) return;
    rmSync(join(this.dir, `actions.${this.keep}.jsonl`), { force: true });
    for (let i = this.keep - 1; i >= 1; i--) {
      const from = join(this.dir, `actions.${i}.jsonl`);
      if (existsSync(from)) renameSync(from, join(this.dir, `actions.${i + 1}.jsonl`));
    }
    renameSync(this.path, join(this.dir, 'actions.1.jsonl'));
  }
}

function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'data:') return 'data:…';
    return `${parsed.origin === 'null' ? `${parsed.protocol}` : parsed.origin}${parsed.pathname}`;
  } catch {
    return url.split(/[?#]/)[0];
  }
}
