import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BROWSERS,
  installNativeHost,
  launcherScript,
  manifestDir,
  regAddArgs,
  regDeleteArgs,
  registryKey,
  uninstallNativeHost,
} from '../../relay/src/native-host/install.js';

const spec = { nodePath: '/usr/bin/node', cliPath: "/opt/it's here/bin/clawd-browser.js", clawdHome: '/home/u/.clawd', extensionIds: ['aaaa', 'bbbb'] };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('where each browser looks for native hosts', () => {
  it('macOS: per-user Application Support folders', () => {
    expect(BROWSERS.map((b) => manifestDir(b, 'darwin', '/Users/u'))).toEqual([
      '/Users/u/Library/Application Support/Google/Chrome/NativeMessagingHosts',
      '/Users/u/Library/Application Support/Chromium/NativeMessagingHosts',
      '/Users/u/Library/Application Support/Microsoft Edge/NativeMessagingHosts',
      '/Users/u/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts',
    ]);
  });

  it('Linux: under ~/.config, or $XDG_CONFIG_HOME', () => {
    expect(manifestDir('chrome', 'linux', '/home/u')).toBe('/home/u/.config/google-chrome/NativeMessagingHosts');
    expect(manifestDir('brave', 'linux', '/home/u', '/xdg')).toBe('/xdg/BraveSoftware/Brave-Browser/NativeMessagingHosts');
  });

  it('Windows: HKCU registry keys set and deleted with reg.exe', () => {
    expect(BROWSERS.map(registryKey)).toEqual([
      'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.clawd.browser_relay',
      'HKCU\\Software\\Chromium\\NativeMessagingHosts\\com.clawd.browser_relay',
      'HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.clawd.browser_relay',
      'HKCU\\Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts\\com.clawd.browser_relay',
    ]);
    expect(regAddArgs('edge', 'C:\\Users\\u\\.clawd\\native-host\\com.clawd.browser_relay.json')).toEqual([
      'add',
      'HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts\\com.clawd.browser_relay',
      '/ve',
      '/t',
      'REG_SZ',
      '/d',
      'C:\\Users\\u\\.clawd\\native-host\\com.clawd.browser_relay.json',
      '/f',
    ]);
    expect(regDeleteArgs('chrome')).toEqual(['delete', 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.clawd.browser_relay', '/f']);
  });
});

describe('the launcher a manifest points at', () => {
  it('is a shell script on Linux and macOS, quoting paths safely', () => {
    const { fileName, content } = launcherScript('linux', spec);
    expect(fileName).toBe('clawd-browser-native-host.sh');
    expect(content).toContain("export CLAWD_HOME='/home/u/.clawd'");
    expect(content).toContain("export CLAWD_EXTENSION_IDS='aaaa,bbbb'");
    expect(content).toContain(`exec '/usr/bin/node' '/opt/it'\\''s here/bin/clawd-browser.js' native-host "$@"`);
  });
  it('is a .bat on Windows that passes Chrome its arguments', () => {
    const { fileName, content } = launcherScript('win32', {
      ...spec,
      nodePath: 'C:\\node\\node.exe',
      cliPath: 'C:\\cb\\bin\\clawd-browser.js',
      clawdHome: 'C:\\Users\\u\\.clawd',
    });
    expect(fileName).toBe('clawd-browser-native-host.bat');
    expect(content.split('\r\n')).toEqual(
      expect.arrayContaining(['@echo off', 'set "CLAWD_HOME=C:\\Users\\u\\.clawd"', '"C:\\node\\node.exe" "C:\\cb\\bin\\clawd-browser.js" native-host %*']),
    );
  });
});

describe('installing on Windows (registry as data)', () => {
  it('writes the manifest under CLAWD_HOME and registers it for each browser', () => {
    const clawdHome = mkdtempSync(join(tmpdir(), 'clawd-win-'));
    dirs.push(clawdHome);
    const calls: string[][] = [];
    const options = {
      ...spec,
      clawdHome,
      browsers: [...BROWSERS],
      platform: 'win32' as const,
      home: 'C:\\Users\\u',
      runReg: (args: string[]) => void calls.push(args),
    };
    const result = installNativeHost(options);
    expect(result.manifests).toEqual([join(clawdHome, 'native-host', 'com.clawd.browser_relay.json')]);
    expect(calls).toEqual(BROWSERS.map((b) => regAddArgs(b, result.manifests[0])));
    const manifest = JSON.parse(readFileSync(result.manifests[0], 'utf8'));
    expect(manifest).toMatchObject({
      name: 'com.clawd.browser_relay',
      type: 'stdio',
      path: result.launcher,
      allowed_origins: ['chrome-extension://aaaa/', 'chrome-extension://bbbb/'],
    });
    calls.length = 0;
    uninstallNativeHost(options);
    expect(calls).toEqual(BROWSERS.map(regDeleteArgs));
  });
});
