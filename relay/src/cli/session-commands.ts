import { InvalidArgumentError, type Command } from 'commander';
import type { BrowserClient } from '../client/browser-client.js';
import { clawdHome } from '../config/state-dir.js';
import type { Print } from './print.js';

/** `15m`, `2h`, `90s`, `1d` or plain seconds → seconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+)\s*(s|m|h|d)?$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('must be a duration like 90s, 15m, 2h or 1d');
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[(match[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Task sessions, grants and the cookie vault (spec §11). */
export function addSessionCommands(program: Command, client: () => BrowserClient, print: Print): void {
  program
    .command('sessions')
    .description('list the open task sessions')
    .action(async () => {
      const { sessions } = await client().sessions();
      print(
        { sessions },
        () =>
          sessions
            .map(
              (s) =>
                `${s.id}  ${s.credential_mode}${s.tenant ? ` ${s.tenant}` : ''}${s.place === 'grid' ? `  grid ${s.node ?? ''}` : ''}  ${s.domains.join(',') || '-'}  until ${s.expiresAt}  (--profile ${s.profile})`,
            )
            .join('\n') || 'no task sessions',
      );
    });
  program
    .command('session-open')
    .description('open a task session: a fresh browser from the clean template; operator mode injects granted cookies')
    .option('--mode <mode>', 'clean or operator', 'clean')
    .option('--tenant <tenant>', 'whose vault (operator)')
    .option('--domain <domain>', 'a domain to inject (repeatable; default: all the grant allows)', collect)
    .option('--grant <token>', 'the grant token (operator)')
    .option(
      '--record <mode>',
      'off, transient or audit: a screenshot per action, kept outside the session; video: audit and a film of the whole session, kept',
      'off',
    )
    .option('--ttl <duration>', 'lifetime, e.g. 15m', parseDuration)
    .option('--place <where>', 'local, or grid (the Selenium Grid in config.json)')
    .option(
      '--allow-private <host>',
      'a loopback or private host it may reach (e.g. 127.0.0.1, localhost), though sessions reach public addresses only (repeatable)',
      collect,
    )
    .action(
      async (options: {
        mode: 'clean' | 'operator';
        tenant?: string;
        domain?: string[];
        grant?: string;
        record: 'off' | 'transient' | 'audit' | 'video';
        ttl?: number;
        place?: 'local' | 'grid';
        allowPrivate?: string[];
      }) => {
        const session = await client().openSession({
          credential_mode: options.mode,
          tenant: options.tenant,
          domains: options.domain,
          grant: options.grant,
          record: options.record,
          ttl: options.ttl,
          place: options.place,
          allowPrivate: options.allowPrivate,
        });
        if (!program.opts().json) for (const warning of session.warnings ?? []) process.stderr.write(`warning: ${warning}\n`);
        print(session, () =>
          [
            `${session.id}  use --profile ${session.profile}  (CDP ${session.cdpUrl}; ${session.injectedCookies} cookies injected; until ${session.expiresAt})`,
            `key ${session.key}  (reaches this session only; give it to the agent instead of the token)`,
          ].join('\n'),
        );
      },
    );
  program
    .command('session-close')
    .description('close a task session: browser stopped, port freed, dir removed')
    .argument('<id>', "the session's id, or its profile name (session-<id>)")
    .action(async (id: string) => {
      const { closed } = await client().closeSession(id);
      print({ closed }, () => `closed ${closed.id}`);
    });
  program
    .command('session-approve')
    .description("let a confirm rule's acts (config.json confirm.rules, e.g. payments) run in one task session without asking a person (the token only)")
    .argument('<id>')
    .requiredOption('--rule <name>', 'the rule')
    .action(async (id: string, options: { rule: string }) => {
      const approved = await client().approveRule(id, options.rule);
      print(approved, () => `${approved.session}: pre-approved ${approved.approved.join(', ')}`);
    });
  program
    .command('grant')
    .description("issue a grant token that lends a tenant's cookies of some domains to operator sessions")
    .requiredOption('--tenant <tenant>', 'whose cookies')
    .requiredOption('--domain <domain>', 'a domain (repeatable)', collect)
    .option('--ttl <duration>', 'how long it is valid, e.g. 15m', parseDuration, 900)
    .option('--secret <name>', 'a named secret the session may type as {{secret:NAME}}, or a one-time code seed as {{totp:NAME}} (repeatable)', collect)
    .action(async (options: { tenant: string; domain: string[]; ttl: number; secret?: string[] }) => {
      const issued = await client().issueGrant({ tenant: options.tenant, domains: options.domain, ttl: options.ttl, secrets: options.secret });
      // Warnings go to stderr: stdout stays the token alone, for $(clawd-browser grant …).
      if (!program.opts().json) for (const warning of issued.warnings ?? []) process.stderr.write(`warning: ${warning}\n`);
      print(issued, () => issued.token);
    });
  program
    .command('vault-list')
    .description('what the cookie vault holds: tenants, domains and dates (never values)')
    .option('--tenant <tenant>', 'one tenant only')
    .action(async (options: { tenant?: string }) => {
      const { entries } = await client().vault(options.tenant);
      print({ entries }, () => entries.map((e) => `${e.tenant}  ${e.domain}  ${e.cookies} cookies  saved ${e.savedAt}`).join('\n') || 'the vault is empty');
    });
  program
    .command('vault-forget')
    .description("remove a tenant's cookies from the vault (one domain, or all)")
    .requiredOption('--tenant <tenant>', 'whose cookies')
    .option('--domain <domain>', 'only this domain')
    .action(async (options: { tenant: string; domain?: string }) => {
      const { forgotten } = await client().vaultForget(options.tenant, options.domain);
      print({ forgotten }, () => (forgotten.length ? forgotten.map((e) => `forgot ${e.tenant} ${e.domain}`).join('\n') : 'nothing to forget'));
    });
  program
    .command('secret-set')
    .description(
      'store a named secret of a tenant, typed only on its domains; the value (or with --totp, the seed) is read from stdin, never from the command line',
    )
    .requiredOption('--tenant <tenant>', 'whose secret')
    .requiredOption('--name <name>', 'its name: agents type it as {{secret:NAME}} (with --totp, its current code as {{totp:NAME}})')
    .requiredOption('--domain <domain>', 'a domain it may be typed on, with its subdomains (repeatable)', collect)
    .option('--totp', "a one-time code seed: the base32 key the site shows, or its otpauth://totp/ URI (the QR code's)")
    .action(async (options: { tenant: string; name: string; domain: string[]; totp?: boolean }) => {
      // One line from stdin (a terminal echoes nothing of it if the shell says so; a pipe is the usual way).
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      const value = Buffer.concat(chunks)
        .toString('utf8')
        .replace(/\r?\n$/, '');
      if (!value) throw new Error('No value on stdin: pipe it in, e.g. `printf %s "$PASSWORD" | clawd-browser secret-set …`');
      const listing = await client().setSecret({
        tenant: options.tenant,
        name: options.name,
        domains: options.domain,
        value,
        kind: options.totp ? 'totp' : 'secret',
      });
      print(
        listing,
        () =>
          `stored ${listing.tenant} ${listing.name}${listing.kind === 'totp' ? ', a one-time code seed' : ''} (typed only on ${listing.domains.join(', ')})`,
      );
    });
  program
    .command('secret-list')
    .description('named secrets: tenants, names and domains (never a value)')
    .option('--tenant <tenant>', 'one tenant only')
    .action(async (options: { tenant?: string }) => {
      const { secrets } = await client().secrets(options.tenant);
      print(
        { secrets },
        () =>
          secrets
            .map((secret) => `${secret.tenant}  ${secret.name}${secret.kind === 'totp' ? ' (totp)' : ''}  ${secret.domains.join(',')}  ${secret.savedAt}`)
            .join('\n') || 'no secrets',
      );
    });
  program
    .command('secret-forget')
    .description("remove a tenant's secret (or all its secrets)")
    .requiredOption('--tenant <tenant>', 'whose secret')
    .option('--name <name>', 'only this one')
    .action(async (options: { tenant: string; name?: string }) => {
      const { forgotten } = await client().forgetSecret(options.tenant, options.name);
      print({ forgotten }, () => (forgotten.length ? forgotten.map((secret) => `forgot ${secret.tenant} ${secret.name}`).join('\n') : 'nothing to forget'));
    });
  program
    .command('reap')
    .description('remove task sessions no running server owns (processes, dirs, ports); safe to run twice')
    .action(async () => {
      // The reaper is the server's (it stops browsers, removes jails): loaded for this command only.
      const { reapSessions } = await import('../sessions/session-reaper.js');
      const reaped = await reapSessions(clawdHome());
      print({ reaped }, () =>
        reaped.length ? reaped.map((r) => `reaped ${r.id}${r.killed.length ? ` (killed ${r.killed.join(', ')})` : ''}`).join('\n') : 'nothing to reap',
      );
    });
}
