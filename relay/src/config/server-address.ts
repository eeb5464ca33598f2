import { relayPortFor } from '../../../protocol/constants.js';
import { controlAddress, loadConfig, urlHost } from './config.js';
import { knownControlUrl } from './server-record.js';

/**
 * The control API a client of this home talks to: `CLAWD_URL`, else the
 * running server's address, else config.json's `controlUrl` (where `serve`
 * will listen).
 */
export function controlUrlFor(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const known = knownControlUrl(home, env);
  if (known) return known;
  const { host, port } = controlAddress(loadConfig(home));
  return `http://${urlHost(host)}:${port}`;
}

/** The relay (extension and CDP) address that goes with `controlUrlFor`. */
export function relayAddressFor(home: string, env: NodeJS.ProcessEnv = process.env): { httpUrl: string; relayUrl: string } {
  const control = new URL(controlUrlFor(home, env));
  const host = `${control.hostname}:${relayPortFor(Number(control.port || 80))}`;
  return { httpUrl: `http://${host}`, relayUrl: `ws://${host}` };
}
