import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ACCENT_COLOR, DEFAULT_CONTROL_PORT, DEFAULT_HOST, relayPortFor } from '../../../protocol/constants.js';
import { describeIssues } from '../validation.js';
import { UrlPolicySchema } from '../runtime/url-policy.js';
import { ConfirmConfigSchema } from '../runtime/consequential-acts.js';
import { ensureHome } from './state-dir.js';
import { BrowseConfigSchema } from './browse-config.js';

/**
 * `$CLAWD_HOME/config.json` (spec §4). Reading never writes: a missing file
 * reads as the defaults, and `serve` (or an explicit command) creates it with
 * them on first run (ensureConfig). Unknown keys are kept out by the schema;
 * a bad file is an error that names the file and the field, never silently
 * replaced.
 */

import { HexColor } from '../api/schemas.js';
export { HexColor };

/** How a profile's browser is reached: launched by us, the user's own through the extension, or a cdpUrl elsewhere. */
export const DriverKind = z.enum(['clawd', 'extension', 'remote']);
export type DriverKind = z.infer<typeof DriverKind>;

const ProfileConfig = z.strictObject({
  cdpPort: z.number().int().min(1).max(65535).optional(),
  cdpUrl: z.url().optional(),
  color: HexColor.optional(),
  driver: DriverKind.optional(),
  /**
   * A managed profile's browser in a jail of its own, as a task session's
   * (Linux, serve as root; sessionLimits apply): its data then lives in
   * /var/lib/clawd-browser/, owned by the jail's user, since $CLAWD_HOME is
   * closed to that user. Where the host cannot jail, the profile does not
   * start, and says why.
   */
  jail: z.boolean().optional(),
});

export const ConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  controlUrl: z.url().default(`http://${DEFAULT_HOST}:${DEFAULT_CONTROL_PORT}`),
  accentColor: HexColor.default(ACCENT_COLOR),
  headless: z.boolean().default(false),
  attachOnly: z.boolean().default(false),
  executablePath: z.string().optional(),
  noSandbox: z.boolean().default(false),
  /**
   * Schemes the URL gate allows beyond http:, https: and about:blank (e.g.
   * ["file:"]), on managed profiles; the extension never shares file:,
   * chrome: or extension pages whatever this says (protocol/url-gate.ts).
   */
  allowedUrlSchemes: z.array(z.string().regex(/^[a-z][a-z0-9+.-]*:?$/i, 'must be a URL scheme like "file:"')).default([]),
  /**
   * Folders uploads may be read from (POST /hooks/file-chooser paths). Unset:
   * the system temp dir, $CLAWD_HOME/uploads and ~/Downloads.
   */
  uploadDirs: z.array(z.string().min(1)).optional(),
  /** Longest any one request that acts on a browser may take (504 beyond it); above the longest wait (2 min) by default. */
  actionTimeoutMs: z.number().int().min(100).max(600_000).default(130_000),
  /**
   * A managed browser unused this long (no request, MCP call or CDP client on
   * its profile) is stopped; the next use starts it again. A server that
   * `mcp` or the native host started by itself also exits once it has had no
   * browser, shared tab, session or client this long. 0: never. Minutes.
   */
  idleStopMinutes: z
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .default(15),
  /** Managed browsers running at once; starting one more is a 429 naming those running. */
  maxRunningBrowsers: z.number().int().min(1).max(64).default(8),
  /**
   * Binding anything but loopback exposes the browser to the network: it
   * takes this as well as the host (config controlUrl or --host).
   */
  allowNonLoopback: z.boolean().default(false),
  /**
   * With allowNonLoopback: Host names the server answers to besides loopback
   * and its bind address (a load balancer's name; a fleet's servers add
   * their store.advertise host themselves). Any other Host is refused (403).
   */
  hostNames: z
    .array(z.string().regex(/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i, 'a host name or address, without a port'))
    .max(32)
    .default([]),
  /** Task sessions open at once (POST /sessions beyond it: 429). */
  maxSessions: z.number().int().min(1).max(64).default(4),
  /** A task session's lifetime when its request gives no ttl (seconds). */
  sessionTtlSeconds: z
    .number()
    .int()
    .min(10)
    .max(7 * 24 * 3600)
    .default(900),
  /**
   * After the first task session, keep this many browsers cloned, started and
   * holding a blank page, so that the next sessions skip the launch (each an
   * idle Chromium, about 150 MB). 0 turns spares off.
   */
  sessionSpares: z.number().int().min(0).max(8).default(1),
  /**
   * How a task session's browser is isolated (spec §14): `jail` (Linux, as
   * root) is its own network namespace with loopback only, its proxy the one
   * way out, a cgroup with sessionLimits, and an unprivileged user of its
   * own; `process` is a browser process of this machine behind its proxy.
   * Left out: jail where the host can, else process, said in each session's
   * answer and in the log.
   */
  sessionIsolation: z.enum(['jail', 'process']).optional(),
  /**
   * A session's limits: its jailed browser's memory, CPU (in cores) and
   * processes and threads; and the connections its way out holds at once
   * (jailed or not), beyond which a new one is closed.
   */
  sessionLimits: z
    .strictObject({
      memoryMiB: z.number().int().min(256).max(1_048_576).default(2048),
      cpus: z.number().min(0.1).max(256).default(1),
      pids: z.number().int().min(128).max(1_000_000).default(2048),
      connections: z.number().int().min(16).max(65_536).default(512),
    })
    .default({ memoryMiB: 2048, cpus: 1, pids: 2048, connections: 512 }),
  /** The earlier switch for one spare: false means sessionSpares 0 (kept so that old config files still load). */
  sessionSpare: z.boolean().optional(),
  /**
   * A Selenium Grid 4 for task sessions (sessions/task-sessions.ts): `POST
   * /sessions {place: "grid"}` places the browser there (every session, with
   * `default: true`). The Grid's queue, routing and nodes decide where.
   */
  grid: z
    .strictObject({
      url: z.url().refine((url) => /^https?:$/.test(new URL(url).protocol), "must be the Grid's http(s) address"),
      username: z.string().optional(),
      password: z.string().optional(),
      /** WebDriver alwaysMatch capabilities for the session; default: headless Chrome. */
      capabilities: z.record(z.string(), z.unknown()).optional(),
      default: z.boolean().default(false),
      keepAliveSeconds: z.number().int().min(1).max(3600).default(15),
      requestTimeoutSeconds: z.number().int().min(1).max(3600).default(60),
    })
    .optional(),
  /**
   * Recordings (service/recording-service.ts, film-service.ts) are bounded:
   * a trace stops itself after traceMaxMinutes, a new HAR, trace or film is
   * refused while a profile's recordings take maxMiB or more, and a film
   * stops growing when it would pass it. Films are made with ffmpeg: this
   * path, else the first on PATH.
   */
  /**
   * Admission of task sessions beyond maxSessions (sessions/admission-queue.ts):
   * up to `max` requests wait for a slot, each up to `waitSeconds`; beyond
   * either, a 429 with Retry-After.
   */
  sessionQueue: z
    .strictObject({
      max: z.number().int().min(0).max(1000).default(16),
      waitSeconds: z.number().min(0).max(600).default(30),
    })
    .prefault({}),
  /** When `GET /pressure` says 503 (runtime/machine-load.ts): the share of all cores busy, or of memory in use, at or above these (1: never). */
  pressure: z
    .strictObject({
      cpu: z.number().min(0.01).max(1).default(0.9),
      memory: z.number().min(0.01).max(1).default(0.95),
    })
    .prefault({}),
  /**
   * The store a fleet of servers shares (spec §18; store/): PostgreSQL at
   * `url` (credentials in it or in PG* environment variables). Without it,
   * everything stays in files under $CLAWD_HOME.
   */
  store: z
    .strictObject({
      postgres: z.strictObject({
        url: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL'),
        poolSize: z.number().int().min(1).max(100).default(10),
      }),
      /**
       * Where the fleet's other servers reach this one's control API (its
       * relay is the port above): carried requests go there. Default: the
       * address it listens on.
       */
      advertise: z.url({ protocol: /^https?$/ }).optional(),
      /** A server that has not renewed its lease for this long is lost: its Grid sessions are taken over, its local ones are lost. */
      leaseSeconds: z.number().int().min(3).max(600).default(15),
    })
    .optional(),
  recordings: z
    .strictObject({
      traceMaxMinutes: z.number().min(0.01).max(240).default(10),
      maxMiB: z.number().int().min(1).max(1_000_000).default(512),
      ffmpeg: z.string().min(1).optional(),
    })
    .prefault({}),
  /**
   * Where a waiting hand-off is announced (spec §22): a webhook of the
   * person's channel (a chat bot, a phone notification service), posted the
   * reason, the session and the one-time link, signed. With one, the link
   * goes there only: agents get the hand-off's id, never its link.
   */
  handoffWebhook: z
    .strictObject({
      url: z
        .url({ protocol: /^https?$/ })
        .refine(
          (url) => url.startsWith('https:') || /^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/.test(url),
          'an https:// URL, or http:// on a loopback address (the link is a credential: it travels encrypted or stays on this machine)',
        ),
    })
    .optional(),
  /** Which URLs tabs may be sent to, on every profile (runtime/url-policy.ts); none by default. */
  urlPolicy: UrlPolicySchema.optional(),
  /**
   * Acts that wait for a person's yes (runtime/consequential-acts.ts): clicks on
   * targets by role and name, forms sent to given domains, downloads of given
   * types, page tools marked consequential. Defaults: payments, executables,
   * page tools.
   */
  confirm: ConfirmConfigSchema.prefault({}),
  /** The browse runtime (browse/): model providers by name, and each run's guardrails (browse-config.ts). */
  browse: BrowseConfigSchema.prefault({}),
  /**
   * The `chrome` profile: the person's own running browser, attached through
   * its remote-debugging consent (attach/). By default clawd-browser looks
   * for it in Chrome's, Chromium's, Edge's and Brave's default user data
   * folders; `userDataDir` names the one to use instead. The person has
   * `answerTimeoutSeconds` to answer Chrome's "Allow remote debugging?".
   */
  chrome: z
    .strictObject({
      userDataDir: z.string().min(1).optional(),
      answerTimeoutSeconds: z.number().int().min(5).max(600).default(120),
    })
    .prefault({}),
  defaultProfile: z.string().default('clawd'),
  profiles: z.record(z.string(), ProfileConfig).default({}),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {}

export function configPath(home: string): string {
  return join(home, 'config.json');
}

export function loadConfig(home: string): Config {
  const path = configPath(home);
  if (!existsSync(path)) return ConfigSchema.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const result = ConfigSchema.safeParse(raw);
  if (!result.success) {
    const detail = describeIssues(result.error, '(top level)');
    throw new ConfigError(`${path}: ${detail}`);
  }
  return result.data;
}

/** The config, written with the defaults first if there is none yet (first run of `serve`). */
export function ensureConfig(home: string): Config {
  const config = loadConfig(home);
  if (!existsSync(configPath(home))) saveConfig(home, config);
  return config;
}

/** Writes the config back (profiles created, ports allocated), keeping the file readable. */
export function saveConfig(home: string, config: Config): void {
  ensureHome(home);
  writeFileSync(configPath(home), `${JSON.stringify(config, null, 2)}\n`);
}

/** A host as it goes into a URL: IPv6 literals in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The control API's address (spec §3 default 127.0.0.1:18791). */
export function controlAddress(config: Config): { host: string; port: number } {
  const url = new URL(config.controlUrl);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : DEFAULT_CONTROL_PORT };
}

/** The relay listens one port above the control API, on the same host (spec §3). */
export function relayAddress(config: Config): { host: string; port: number } {
  const control = controlAddress(config);
  return { host: control.host, port: relayPortFor(control.port) };
}
