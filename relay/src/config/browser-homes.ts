import { posix, win32 } from 'node:path';
import type { Platform } from './platform.js';

/**
 * Where each Chromium browser keeps a person's user data, per platform: the
 * folder that holds their profiles, `Local State`, and (while remote
 * debugging is allowed) `DevToolsActivePort`. The native host's manifests
 * go in a folder inside it; clawd-browser attaches to a running browser
 * through the port file there. Plain data, so every platform is testable
 * anywhere.
 */

export const BROWSERS = ['chrome', 'chromium', 'edge', 'brave'] as const;
export type BrowserName = (typeof BROWSERS)[number];

/** What a browser is called to a person. */
export const BROWSER_TITLES: Record<BrowserName, string> = { chrome: 'Google Chrome', chromium: 'Chromium', edge: 'Microsoft Edge', brave: 'Brave' };

const LINUX_CONFIG_DIRS: Record<BrowserName, string> = {
  chrome: 'google-chrome',
  chromium: 'chromium',
  edge: 'microsoft-edge',
  brave: 'BraveSoftware/Brave-Browser',
};
const MAC_SUPPORT_DIRS: Record<BrowserName, string> = {
  chrome: 'Google/Chrome',
  chromium: 'Chromium',
  edge: 'Microsoft Edge',
  brave: 'BraveSoftware/Brave-Browser',
};
const WINDOWS_LOCAL_DIRS: Record<BrowserName, string> = {
  chrome: 'Google\\Chrome\\User Data',
  chromium: 'Chromium\\User Data',
  edge: 'Microsoft\\Edge\\User Data',
  brave: 'BraveSoftware\\Brave-Browser\\User Data',
};

/** The parts of the environment that move these folders. */
export interface HomeEnv {
  /** The user's home folder. */
  home: string;
  /** Linux: $XDG_CONFIG_HOME, in place of ~/.config. */
  xdgConfigHome?: string;
  /** Windows: %LOCALAPPDATA%, in place of ~\AppData\Local. */
  localAppData?: string;
}

/** The browser's default user data folder for this user. */
export function userDataDir(browser: BrowserName, platform: Platform, env: HomeEnv): string {
  if (platform === 'darwin') return posix.join(env.home, 'Library/Application Support', MAC_SUPPORT_DIRS[browser]);
  if (platform === 'win32') return win32.join(env.localAppData || win32.join(env.home, 'AppData', 'Local'), WINDOWS_LOCAL_DIRS[browser]);
  return posix.join(env.xdgConfigHome || posix.join(env.home, '.config'), LINUX_CONFIG_DIRS[browser]);
}

/** This process's HomeEnv. */
export function homeEnv(home: string): HomeEnv {
  return { home, xdgConfigHome: process.env.XDG_CONFIG_HOME, localAppData: process.env.LOCALAPPDATA };
}
