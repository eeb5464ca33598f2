import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumPath } from './chromium.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** An exported test run by `@playwright/test` as it is (the checkout's, through node_modules beside it), in a folder of its own that goes after. */
export function runPlaywrightTest(script: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'clawd-demo-test-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'recorded.spec.ts'), script);
  writeFileSync(
    join(dir, 'playwright.config.ts'),
    `import { defineConfig } from '@playwright/test';\nexport default defineConfig({ testDir: '.', reporter: 'line', use: { headless: true, launchOptions: { executablePath: ${JSON.stringify(chromiumPath())}, args: ['--no-sandbox'] } } });\n`,
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '--config', join(dir, 'playwright.config.ts')],
      { cwd: dir, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
      },
    );
  });
}
