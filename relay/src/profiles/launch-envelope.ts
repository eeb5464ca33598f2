/**
 * What surrounds a browser this server launches (spec §14): its one way out
 * (the egress proxy it is launched behind), and, for a jailed task session,
 * the jail its processes start in. The browser asks for it just before its
 * launch and gives it back once every process has stopped. Made by the
 * layers that own those things (egress/, jail/); the launcher only uses it.
 */
export interface LaunchEnvelope {
  prepare(): Promise<PreparedLaunch>;
  /** After the browser's processes have stopped (safe to call twice). */
  release(): Promise<void>;
  /** Why a connection to `host` failed at the way out since `since` (ms since the epoch), if one did (egress/egress-failures.ts). */
  egressFailure?(host: string, since: number): EgressFailureReason | undefined;
}

/** What the way out knows of a failed connection: a sentence for a person, and whether the URL policy refused it. */
export interface EgressFailureReason {
  reason: string;
  byPolicy: boolean;
}

export interface PreparedLaunch {
  /** The proxy Chromium must send everything through, e.g. `http://127.0.0.1:41000`. */
  proxyServer: string;
  /** The command that runs the browser inside the jail, when there is one. */
  wrap?: (command: string, args: string[]) => { command: string; args: string[] };
  /** Set in the browser's environment (a jailed user's own HOME). */
  env?: Record<string, string>;
  /** The browser runs as an unprivileged user (the jail): Chromium's own sandbox can stay on. */
  unprivileged?: boolean;
}

/** The flags that keep a browser on its proxy: loopback too (Chromium bypasses it by default), and WebRTC with no UDP of its own. */
export function proxyArgs(proxyServer: string): string[] {
  return [
    `--proxy-server=${proxyServer}`,
    '--proxy-bypass-list=<-loopback>',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
  ];
}
