import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { ClawdError } from '../errors.js';

/**
 * The vault's files (its cookies, its secrets): JSON of a known shape, read
 * as that shape or refused as altered, and written crash-safely.
 */

/** A vault entry or file failed authentication or its shape: altered (or another key wrote it). */
export class VaultTamperedError extends ClawdError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** The file's entries (none when it does not exist yet), or a VaultTamperedError naming `what`. */
export function readVaultFile<T>(path: string, shape: z.ZodType<{ entries: T[] }>, what: string): T[] {
  if (!existsSync(path)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new VaultTamperedError(`The ${what} ${path} is not the JSON it should be: it was altered or damaged`);
  }
  const checked = shape.safeParse(parsed);
  if (!checked.success) throw new VaultTamperedError(`The ${what} ${path} does not have its shape: it was altered`);
  return checked.data.entries;
}

/**
 * Writes a file crash-safely: a temp file (0600), fsync, then rename over the
 * old one (POSIX rename is atomic), so a crash leaves the old file or the
 * new one, never half of either.
 */
export function writeFileAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/**
 * Sealed entries in one file of this home, one per (tenant, key): the
 * vault's per domain, the secrets' per name. The row stores' file answer
 * (cookie-vault.ts, secret-store.ts); the fleet's store has its own.
 */
export class VaultFileRows<T extends { tenant: string }> {
  constructor(
    private readonly path: string,
    private readonly shape: z.ZodType<{ entries: T[] }>,
    /** What the file is, for a refusal's message. */
    private readonly what: string,
    /** The entry's key within its tenant. */
    private readonly keyOf: (entry: T) => string,
  ) {}

  async list(tenant?: string): Promise<T[]> {
    return this.read().filter((entry) => tenant === undefined || entry.tenant === tenant);
  }

  async find(tenant: string, key: string): Promise<T | undefined> {
    return this.read().find((entry) => entry.tenant === tenant && this.keyOf(entry) === key);
  }

  /** Keeps an entry in place of the one for its (tenant, key). */
  async put(entry: T): Promise<void> {
    this.write([...this.read().filter((other) => !(other.tenant === entry.tenant && this.keyOf(other) === this.keyOf(entry))), entry]);
  }

  /** Removes a tenant's entry for `key`, or all its entries; says what went. */
  async remove(tenant: string, key?: string): Promise<T[]> {
    const entries = this.read();
    const gone = entries.filter((entry) => entry.tenant === tenant && (key === undefined || this.keyOf(entry) === key));
    if (gone.length) this.write(entries.filter((entry) => !gone.includes(entry)));
    return gone;
  }

  private read(): T[] {
    return readVaultFile(this.path, this.shape, this.what);
  }

  private write(entries: T[]): void {
    writeFileAtomically(this.path, JSON.stringify({ version: 1, entries }));
  }
}
