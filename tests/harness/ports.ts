import { createServer } from 'node:net';

async function isFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A free port p whose p+1 is free too: the control API and its relay (spec §3). */
export async function freePortPair(): Promise<{ control: number; relay: number }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    if (port < 65535 && (await isFree(port + 1))) return { control: port, relay: port + 1 };
  }
  throw new Error('no two adjacent free ports found');
}
