import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { NATIVE_HOST_NAME } from '../../../protocol/constants.js';
import { PACKAGE_ROOT } from '../config/package-root.js';
import type { Platform } from '../config/platform.js';
import { BROWSERS, type BrowserName, userDataDir } from '../config/browser-homes.js';

/**
 * `clawd-browser install-native-host`: where each browser looks for native
 * messaging host manifests, and writing them there (spec §8). The locations
 * and registry commands are plain data so every platform is testable anywhere.
 */

export { BROWSERS, type BrowserName };

const WINDOWS_REGISTRY_ROOTS: Record<BrowserName, string> = {
  chrome: 'HKCU\\Software\\Google\\Chrome',
  chromium: 'HKCU\\Software\\Chromium',
  edge: 'HKCU\\Software\\Microsoft\\Edge',
  brave: 'HKCU\\Software\\BraveSoftware\\Brave-Browser',
};

/** The per-user folder a browser reads manifests from on Linux and macOS: inside its user data folder. */
export function manifestDir(browser: BrowserName, platform: 'linux' | 'darwin', home: string, xdgConfigHome?: string): string {
  return posix.join(userDataDir(browser, platform, { home, xdgConfigHome }), 'NativeMessagingHosts');
}

/** Windows: the HKCU key whose default value is the manifest's path. */
export function registryKey(browser: BrowserName): string {
  return `${WINDOWS_REGISTRY_ROOTS[browser]}\\NativeMessagingHosts\\${NATIVE_HOST_NAME}`;
}

export function regAddArgs(browser: BrowserName, manifestPath: string): string[] {
  return ['add', registryKey(browser), '/ve', '/t', 'REG_SZ', '/d', manifestPath, '/f'];
}

export function regDeleteArgs(browser: BrowserName): string[] {
  return ['delete', registryKey(browser), '/f'];
}

export interface LauncherSpec {
  nodePath: string;
  cliPath: string;
  clawdHome: string;
  extensionIds: string[];
}

/**
 * A manifest's `path` takes no arguments, so it points at a small launcher
 * that runs this Node with this CLI, for this $CLAWD_HOME.
 */
export function launcherScript(platform: Platform, spec: LauncherSpec): { fileName: string; content: string } {
  if (platform === 'win32') {
    return {
      fileName: 'clawd-browser-native-host.bat',
      content: [
        '@echo off',
        'rem Written by clawd-browser install-native-host. Chrome starts it; it speaks on stdout.',
        `set "CLAWD_HOME=${spec.clawdHome}"`,
        `set "CLAWD_EXTENSION_IDS=${spec.extensionIds.join(',')}"`,
        `"${spec.nodePath}" "${spec.cliPath}" native-host %*`,
        '',
      ].join('\r\n'),
    };
  }
  const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  return {
    fileName: 'clawd-browser-native-host.sh',
    content: [
      '#!/bin/sh',
      '# Written by clawd-browser install-native-host. Chrome starts it; it speaks on stdout.',
      `export CLAWD_HOME=${quote(spec.clawdHome)}`,
      `export CLAWD_EXTENSION_IDS=${quote(spec.extensionIds.join(','))}`,
      `exec ${quote(spec.nodePath)} ${quote(spec.cliPath)} native-host "$@"`,
      '',
    ].join('\n'),
  };
}

const TEMPLATE = join(PACKAGE_ROOT, 'host-manifest', 'com.clawd.browser_relay.json.template');

/** The manifest, from host-manifest/'s template with this install's launcher and extension IDs. */
export function hostManifest(launcherPath: string, extensionIds: string[]): Record<string, unknown> {
  const template = JSON.parse(readFileSync(TEMPLATE, 'utf8')) as Record<string, unknown>;
  return { ...template, path: launcherPath, allowed_origins: extensionIds.map((id) => `chrome-extension://${id}/`) };
}

export interface InstallOptions extends LauncherSpec {
  browsers: BrowserName[];
  /** Write into <dir>/NativeMessagingHosts instead of the per-user folders. */
  userDataDir?: string;
  platform: Platform;
  /** The user's home (for per-user folders). */
  home: string;
  xdgConfigHome?: string;
  /** Runs reg.exe on Windows; injectable so it can be observed. */
  runReg?: (args: string[]) => void;
}

export interface InstallResult {
  launcher: string;
  manifests: string[];
  registryKeys: string[];
}

const manifestFile = `${NATIVE_HOST_NAME}.json`;

function manifestTargets(options: InstallOptions): { dirs: string[]; registry: BrowserName[] } {
  if (options.userDataDir) return { dirs: [join(options.userDataDir, 'NativeMessagingHosts')], registry: [] };
  if (options.platform === 'win32') return { dirs: [join(options.clawdHome, 'native-host')], registry: options.browsers };
  const platform = options.platform;
  return { dirs: options.browsers.map((b) => manifestDir(b, platform, options.home, options.xdgConfigHome)), registry: [] };
}

const defaultReg = (args: string[]) => void execFileSync('reg', args, { stdio: 'ignore' });

export function installNativeHost(options: InstallOptions): InstallResult {
  const launcherDir = join(options.clawdHome, 'native-host');
  mkdirSync(launcherDir, { recursive: true });
  const launcher = launcherScript(options.platform, options);
  const launcherPath = join(launcherDir, launcher.fileName);
  writeFileSync(launcherPath, launcher.content);
  if (options.platform !== 'win32') chmodSync(launcherPath, 0o755);

  const manifest = `${JSON.stringify(hostManifest(launcherPath, options.extensionIds), null, 2)}\n`;
  const { dirs, registry } = manifestTargets(options);
  const manifests = dirs.map((dir) => {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, manifestFile);
    writeFileSync(path, manifest);
    return path;
  });
  for (const browser of registry) (options.runReg ?? defaultReg)(regAddArgs(browser, manifests[0]));
  return { launcher: launcherPath, manifests, registryKeys: registry.map(registryKey) };
}

export function uninstallNativeHost(options: InstallOptions): InstallResult {
  const { dirs, registry } = manifestTargets(options);
  const manifests = dirs.map((dir) => join(dir, manifestFile)).filter((path) => existsSync(path));
  for (const path of manifests) rmSync(path);
  for (const browser of registry) {
    try {
      (options.runReg ?? defaultReg)(regDeleteArgs(browser));
    } catch {
      // not registered for that browser: nothing to undo
    }
  }
  const launcher = join(options.clawdHome, 'native-host', launcherScript(options.platform, options).fileName);
  // The launcher is shared by every browser; it goes with the last manifest.
  if (!options.userDataDir && existsSync(launcher)) rmSync(launcher);
  return { launcher, manifests, registryKeys: registry.map(registryKey) };
}
