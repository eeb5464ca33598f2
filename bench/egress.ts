/**
 * What the egress proxy costs (docs/jails.md): a page with 100 subresources
 * (50 images, 50 scripts, each its own URL) loaded to `load` by Chromium
 * directly, and by the same Chromium behind the proxy in another process,
 * as every launched browser now is. Fresh context per load (no cache),
 * alternating, median and p95 of BENCH_EGRESS_RUNS (default 15).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

export interface EgressFigures {
  direct: number[];
  proxied: number[];
  subresources: number;
}

const SUBRESOURCES = 100;
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

export async function measureEgress(): Promise<EgressFigures> {
  const site = createServer((request, response) => {
    const url = request.url ?? '/';
    if (url.startsWith('/img/')) return void response.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(PIXEL);
    if (url.startsWith('/js/'))
      return void response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(`window.n = (window.n || 0) + 1;`);
    const parts: string[] = [];
    for (let i = 0; i < SUBRESOURCES / 2; i++) parts.push(`<img src="/img/${i}.png"><script src="/js/${i}.js"></script>`);
    response.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end(`<!doctype html><title>many</title>${parts.join('')}`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  const proxyProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./egress-proxy-process.ts', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const proxyPort = await new Promise<number>((resolve, reject) => {
    proxyProcess.stdout!.on('data', (chunk: Buffer) => {
      const port = /listening (\d+)/.exec(chunk.toString())?.[1];
      if (port) resolve(Number(port));
    });
    proxyProcess.once('exit', () => reject(new Error('the proxy process exited')));
  });
  const launch = (proxied: boolean): Promise<Browser> =>
    chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', ...(proxied ? [`--proxy-server=http://127.0.0.1:${proxyPort}`, '--proxy-bypass-list=<-loopback>'] : [])],
    });
  const [direct, proxied] = [await launch(false), await launch(true)];
  const figures: EgressFigures = { direct: [], proxied: [], subresources: SUBRESOURCES };
  const load = async (browser: Browser): Promise<number> => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(pageUrl, { waitUntil: 'load' });
    const took = performance.now() - started;
    if ((await page.evaluate(() => (window as unknown as { n: number }).n)) !== SUBRESOURCES / 2) throw new Error('not every script ran');
    await context.close();
    return took;
  };
  try {
    await load(direct);
    await load(proxied);
    for (let i = 0; i < Number(process.env.BENCH_EGRESS_RUNS ?? 15); i++) {
      figures.direct.push(await load(direct));
      figures.proxied.push(await load(proxied));
    }
  } finally {
    await direct.close();
    await proxied.close();
    proxyProcess.stdin!.end();
    site.close();
  }
  return figures;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * 0.95) - 1)];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await measureEgress();
  console.log(
    `page with ${figures.subresources} subresources, to load (ms): direct p50 ${median(figures.direct).toFixed(1)} p95 ${p95(figures.direct).toFixed(1)}; through the egress proxy p50 ${median(figures.proxied).toFixed(1)} p95 ${p95(figures.proxied).toFixed(1)}; ratio p50 ${(median(figures.proxied) / median(figures.direct)).toFixed(2)}`,
  );
}
