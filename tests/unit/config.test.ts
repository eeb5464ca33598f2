import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { DEFAULT_CONFIRM_RULES } from '../../relay/src/runtime/consequential-acts.js';
import { describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { ConfigError, ConfigSchema, configPath, ensureConfig, loadConfig, relayAddress, urlHost } from '../../relay/src/config/config.js';
import { ProfileRegistry } from '../../relay/src/profiles/profile-registry.js';
import { tempDirs } from '../harness/temp-dirs.js';

const home = tempDirs('clawd-config-');

describe('config.json', () => {
  it('reads as the spec defaults before the first run, and is written only by ensureConfig', () => {
    const dir = home();
    const config = loadConfig(dir);
    expect(existsSync(configPath(dir))).toBe(false);
    expect(ensureConfig(dir)).toEqual(config);
    expect(config).toEqual({
      enabled: true,
      controlUrl: 'http://127.0.0.1:18791',
      accentColor: '#FF4500',
      headless: false,
      attachOnly: false,
      noSandbox: false,
      allowedUrlSchemes: [],
      actionTimeoutMs: 130_000,
      idleStopMinutes: 15,
      maxRunningBrowsers: 8,
      allowNonLoopback: false,
      hostNames: [],
      maxSessions: 4,
      sessionTtlSeconds: 900,
      sessionSpares: 1,
      sessionLimits: { memoryMiB: 2048, cpus: 1, pids: 2048, connections: 512 },
      sessionQueue: { max: 16, waitSeconds: 30 },
      pressure: { cpu: 0.9, memory: 0.95 },
      recordings: { traceMaxMinutes: 10, maxMiB: 512 },
      confirm: { rules: DEFAULT_CONFIRM_RULES, askPerson: 'auto', waitSeconds: 300 },
      browse: { providers: {}, maxSteps: 30, maxStepsLimit: 100, stepTimeoutMs: 120_000, budgetTokens: 0, maxRuns: 2 },
      chrome: { answerTimeoutSeconds: 120 },
      defaultProfile: 'clawd',
      profiles: {},
    });
    expect(JSON.parse(readFileSync(configPath(dir), 'utf8'))).toEqual(config);
    expect(relayAddress(config)).toEqual({ host: '127.0.0.1', port: 18792 });
  });

  it('puts the relay one port above a configured control port', () => {
    const dir = home();
    writeFileSync(configPath(dir), JSON.stringify({ controlUrl: 'http://localhost:29001' }));
    expect(relayAddress(loadConfig(dir))).toEqual({ host: 'localhost', port: 29002 });
  });

  it('names the file and the field when the config is wrong', () => {
    const dir = home();
    writeFileSync(configPath(dir), '{ "enabled": "yes", "accentColor": "orange", "surprise": 1 }');
    expect(() => loadConfig(dir)).toThrow(ConfigError);
    expect(() => loadConfig(dir)).toThrow(/config\.json: enabled: .*; accentColor: must be a colour like #FF4500; .*surprise/);
    // Jails: a limit out of range, an isolation nobody knows, each named by its key.
    writeFileSync(configPath(dir), '{ "sessionIsolation": "vm", "sessionLimits": { "memoryMiB": 16, "cpus": 0 } }');
    expect(() => loadConfig(dir)).toThrow(/sessionIsolation: .*"jail".*"process"/);
    expect(() => loadConfig(dir)).toThrow(/sessionLimits\.memoryMiB: .*256/);
    expect(() => loadConfig(dir)).toThrow(/sessionLimits\.cpus: /);
    writeFileSync(configPath(dir), '{ not json');
    expect(() => loadConfig(dir)).toThrow(/is not valid JSON/);
  });
  it('brackets IPv6 hosts for URLs', () => {
    expect(urlHost('::1')).toBe('[::1]');
    expect(urlHost('127.0.0.1')).toBe('127.0.0.1');
  });
});

describe('reads do not write', () => {
  it('loading the config, listing profiles and constructing a client leave an empty home empty', () => {
    const dir = home();
    loadConfig(dir);
    expect(new ProfileRegistry(dir).list().map((profile) => profile.name)).toEqual(['clawd', 'extension', 'chrome']);
    BrowserClient.local({ home: dir });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('serve prepares the home: config written, the clawd profile given its port', () => {
    const dir = home();
    new ProfileRegistry(dir).prepare();
    expect(JSON.parse(readFileSync(configPath(dir), 'utf8')).profiles.clawd.cdpPort).toBe(18800);
  });
});

describe('a hand-off webhook', () => {
  it('is an https URL, or http on a loopback address: the link it is posted is a credential', () => {
    for (const url of ['https://chat.example/hooks/clawd', 'http://127.0.0.1:8080/hook', 'http://localhost:9000', 'http://[::1]:7000/x'])
      expect(ConfigSchema.parse({ handoffWebhook: { url } }).handoffWebhook?.url, url).toBe(url);
    for (const url of ['http://chat.example/hook', 'http://127.0.0.1.evil.example/hook', 'ftp://127.0.0.1/hook', 'not a url'])
      expect(() => ConfigSchema.parse({ handoffWebhook: { url } }), url).toThrow(/https|URL|url/);
  });
});
