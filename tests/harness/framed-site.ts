import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A page whose forms sit in frames, as a shop's do: a sign-up form in a
 * same-origin frame, and inside that a payment form in a frame of another
 * origin (the same server, reached as `localhost` rather than `127.0.0.1`:
 * another site, so an out-of-process frame under site isolation). Each form
 * keeps what it receives: a test asks the site, not clawd, what was sent.
 */

export interface FramedSite {
  /** The top page, on 127.0.0.1. */
  url: string;
  /** The payment frame's origin (localhost). */
  otherOrigin: string;
  joined: Array<{ email: string }>;
  paid: Array<{ card: string; holder: string }>;
  close(): Promise<void>;
}

const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const escape = (text: string) => text.replace(/[<&"]/g, '');

export async function startFramedSite(): Promise<FramedSite> {
  const joined: FramedSite['joined'] = [];
  const paid: FramedSite['paid'] = [];
  let port = 0;
  const form = (request: import('node:http').IncomingMessage): Promise<URLSearchParams> =>
    new Promise((resolve) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => resolve(new URLSearchParams(body)));
    });
  const server: Server = createServer((request, response) => {
    const html = (text: string) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(text);
    const path = request.url?.split('?')[0];
    if (request.method === 'GET' && path === '/shop') {
      return html(page('Shop', `<h1>Checkout</h1><p>Your basket: one teapot.</p><iframe title="Sign-up" src="/signup" width="700" height="520"></iframe>`));
    }
    if (request.method === 'GET' && path === '/signup') {
      return html(
        page(
          'Sign-up',
          `<form method="post" action="/join"><p><label>Email <input name="email" type="email" autocomplete="off"></label></p><p><button type="submit">Join</button></p></form>` +
            `<iframe title="Payment" src="http://localhost:${port}/pay" width="600" height="300"></iframe>`,
        ),
      );
    }
    if (request.method === 'GET' && path === '/pay') {
      return html(
        page(
          'Payment',
          `<form method="post" action="/pay"><p><label>Card number <input name="card" autocomplete="off"></label></p><p><label>Name on card <input name="holder" autocomplete="off"></label></p><p><button type="submit">Use this card</button></p></form>`,
        ),
      );
    }
    if (request.method === 'POST' && path === '/join') {
      void form(request).then((sent) => {
        joined.push({ email: sent.get('email') ?? '' });
        html(
          page(
            'Joined',
            `<p>Joined as ${escape(sent.get('email') ?? '')}</p><iframe title="Payment" src="http://localhost:${port}/pay" width="600" height="300"></iframe>`,
          ),
        );
      });
      return;
    }
    if (request.method === 'POST' && path === '/pay') {
      void form(request).then((sent) => {
        paid.push({ card: sent.get('card') ?? '', holder: sent.get('holder') ?? '' });
        html(page('Paid', `<h1>Card taken, thank you ${escape(sent.get('holder') ?? '')}</h1>`));
      });
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/shop`,
    otherOrigin: `http://localhost:${port}`,
    joined,
    paid,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
