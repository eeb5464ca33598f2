import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ExecutableNotFoundError, candidateExecutables, defaultExecutableEnv, findExecutable } from '../../relay/src/profiles/executable.js';

const linuxEnv = { home: '/home/u', path: '/usr/bin:/home/u/bin:relative/bin:/usr/bin/:' };

describe('where each platform looks for a browser', () => {
  it('Linux: Canary, then Chromium, then Google Chrome, in the well-known dirs and then PATH', () => {
    const candidates = candidateExecutables('linux', linuxEnv);
    expect(candidates.slice(0, 4)).toEqual([
      '/usr/bin/google-chrome-canary',
      '/usr/local/bin/google-chrome-canary',
      '/snap/bin/google-chrome-canary',
      '/home/u/bin/google-chrome-canary',
    ]);
    const firstOf = (name: string) => candidates.indexOf(`/usr/bin/${name}`);
    expect(firstOf('google-chrome-canary')).toBeLessThan(firstOf('chromium'));
    expect(firstOf('chromium')).toBeLessThan(firstOf('chromium-browser'));
    expect(firstOf('chromium-browser')).toBeLessThan(firstOf('google-chrome'));
    expect(firstOf('google-chrome')).toBeLessThan(firstOf('google-chrome-stable'));
    expect(firstOf('google-chrome-stable')).toBeLessThan(firstOf('google-chrome-beta'));
    expect(candidates).toContain('/snap/bin/chromium');
    expect(candidates).toContain('/opt/google/chrome/chrome');
  });

  it('Linux: PATH directories are included once, relative and empty entries skipped', () => {
    const candidates = candidateExecutables('linux', linuxEnv);
    expect(candidates).toContain('/home/u/bin/chromium');
    expect(new Set(candidates).size).toBe(candidates.length);
    expect(candidates.every((path) => path.startsWith('/'))).toBe(true);
    expect(candidates.filter((path) => path.endsWith('/chromium'))).toEqual([
      '/usr/bin/chromium',
      '/usr/local/bin/chromium',
      '/snap/bin/chromium',
      '/home/u/bin/chromium',
    ]);
  });

  it('macOS: app bundles under /Applications, then ~/Applications', () => {
    expect(candidateExecutables('darwin', { home: '/Users/u' }).slice(0, 6)).toEqual([
      '/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary',
      '/Users/u/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary',
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Users/u/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
      '/Users/u/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    ]);
  });

  it('Windows: per-user Canary and Chromium, then Chrome in Program Files and per-user', () => {
    const env = {
      home: 'C:\\Users\\u',
      localAppData: 'C:\\Users\\u\\AppData\\Local',
      programFiles: 'C:\\Program Files',
      programFilesX86: 'C:\\Program Files (x86)',
    };
    expect(candidateExecutables('win32', env).slice(0, 5)).toEqual([
      'C:\\Users\\u\\AppData\\Local\\Google\\Chrome SxS\\Application\\chrome.exe',
      'C:\\Users\\u\\AppData\\Local\\Chromium\\Application\\chrome.exe',
      'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
      'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe',
      'C:\\Users\\u\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe',
    ]);
  });

  it('Windows: falls back to the stock folders when the variables are unset', () => {
    expect(candidateExecutables('win32', { home: 'C:\\Users\\u' })).toContain('C:\\Users\\u\\AppData\\Local\\Chromium\\Application\\chrome.exe');
  });
});

describe('findExecutable', () => {
  const installed =
    (...paths: string[]) =>
    (path: string) =>
      paths.includes(path);

  it('takes the first installed candidate', () => {
    const isExecutable = installed('/usr/bin/google-chrome', '/snap/bin/chromium');
    expect(findExecutable({ platform: 'linux', env: linuxEnv, isExecutable })).toBe('/snap/bin/chromium');
  });

  it('uses executablePath when set, even if other browsers are installed', () => {
    const isExecutable = installed('/usr/bin/chromium', '/opt/my/chrome');
    expect(findExecutable({ executablePath: '/opt/my/chrome', platform: 'linux', env: linuxEnv, isExecutable })).toBe('/opt/my/chrome');
  });

  it('does not fall back when executablePath is wrong', () => {
    const find = () =>
      findExecutable({ executablePath: '/opt/missing/chrome', platform: 'linux', env: linuxEnv, isExecutable: installed('/usr/bin/chromium') });
    expect(find).toThrow(ExecutableNotFoundError);
    expect(find).toThrow(/executablePath "\/opt\/missing\/chrome" in config\.json is not an executable file/);
  });

  it('says what it searched and how to fix it when nothing is installed', () => {
    let error: unknown;
    try {
      findExecutable({ platform: 'linux', env: linuxEnv, isExecutable: () => false });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ExecutableNotFoundError);
    const { message, searched } = error as ExecutableNotFoundError;
    expect(searched).toEqual(candidateExecutables('linux', linuxEnv));
    expect(message).toContain('/usr/bin/{google-chrome-canary,chromium,chromium-browser,google-chrome,');
    expect(message).toContain('/home/u/bin/{');
    expect(message).toContain('/opt/google/chrome/chrome');
    expect(message).toContain('"executablePath" in config.json');
    expect(message).toContain('apt-get install chromium');
    // Compact: each directory named once, not once per browser name.
    expect(message.split('/usr/bin/').length - 1).toBe(1);
  });

  it.skipIf(!existsSync('/usr/bin/chromium'))('finds the Chromium installed on this machine', () => {
    expect(findExecutable({ platform: 'linux', env: defaultExecutableEnv() })).toBe('/usr/bin/chromium');
  });
});
