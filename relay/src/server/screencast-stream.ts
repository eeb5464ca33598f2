import type { Response } from 'express';
import type { TabScreencast } from '../driver/film/screencast.js';
import { LIMITS } from './limits.js';

/**
 * A tab's live view as HTTP: multipart/x-mixed-replace JPEG, which an <img>
 * shows as it comes (`GET /screencast`, and a hand-off's own
 * `/handoff/<id>/screencast`). The screencast stops when the last viewer
 * leaves; a viewer that does not keep up misses frames rather than growing
 * the buffer.
 */
export async function streamScreencast(cast: TabScreencast, response: Response): Promise<void> {
  const boundary = 'clawdframe';
  response.writeHead(200, { 'content-type': `multipart/x-mixed-replace; boundary=${boundary}`, 'cache-control': 'no-store', connection: 'close' });
  // Each frame is followed by the next boundary at once: a browser shows a part only when it sees the part end.
  response.write(`--${boundary}\r\n`);
  const write = (jpeg: Buffer, capturedAt: number) => {
    if (response.writableLength > LIMITS.screencastBufferedBytes) return;
    response.write(`Content-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\nX-Captured-At: ${Math.round(capturedAt)}\r\n\r\n`);
    response.write(jpeg);
    response.write(`\r\n--${boundary}\r\n`);
  };
  // Browsers show a part once the next one starts: a still page (one frame) is sent once more.
  let repeat: NodeJS.Timeout | undefined;
  const stop = await cast.watch(({ jpeg, capturedAt }) => {
    clearTimeout(repeat);
    write(jpeg, capturedAt);
    repeat = setTimeout(() => write(jpeg, capturedAt), 250);
  });
  const end = () => {
    clearTimeout(repeat);
    stop().catch(() => {});
  };
  // The viewer may have gone while the screencast started: then it stops at once.
  if (response.destroyed) end();
  else response.once('close', end);
}
