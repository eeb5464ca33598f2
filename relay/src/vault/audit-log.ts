import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The audit trail of credentials (spec §11): every vault refresh, grant,
 * injection and session start and stop, as one JSON line in
 * `$CLAWD_HOME/logs/audit.jsonl`, outside any session's dir. Tenants,
 * sessions, domains, grant ids and outcomes; never a cookie value.
 */

export interface AuditEvent {
  event: 'grant' | 'grant-revoked' | 'refresh-start' | 'refresh-saved' | 'extension-saved' | 'inject' | 'session-start' | 'session-stop' | 'vault-forget' | 'cdp-connect' | 'cdp-disconnect';
  tenant?: string;
  session?: string;
  domains?: string[];
  grantId?: string;
  outcome: 'ok' | 'refused' | 'error';
  detail?: string;
}

export class AuditLog {
  constructor(private readonly path: string) {}

  record(event: AuditEvent): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    appendFileSync(this.path, `${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`, { mode: 0o600 });
  }
}
