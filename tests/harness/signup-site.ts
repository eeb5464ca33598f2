import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small site with a sign-up form (a name, an email, a password, a plan to
 * choose, a newsletter box, a submit button) that keeps every submission it
 * receives: a test asks the site, not clawd, what was sent.
 */

export interface Submission {
  name: string;
  email: string;
  password: string;
  plan: string;
  newsletter: boolean;
}

export interface SignupSite {
  url: string;
  submissions: Submission[];
  /** What the submit button says (a site that changed since a routine was recorded). */
  button: string;
  /** Where the form has moved, when set: its page answers with a redirect there (a site that moved, or an open redirect). */
  moved?: string;
  close(): Promise<void>;
}

const form = (button: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>Sign up</title></head>
<body>
<h1>Sign up</h1>
<form method="post" action="/signup">
  <p><label>Full name <input name="name" autocomplete="off"></label></p>
  <p><label>Email <input name="email" type="email" autocomplete="off"></label></p>
  <p><label>Password <input name="password" type="password" autocomplete="new-password"></label></p>
  <p><label>Plan <select name="plan"><option value="free">Free</option><option value="pro">Pro</option><option value="team">Team</option></select></label></p>
  <p><label><input type="checkbox" name="newsletter"> Send me the newsletter</label></p>
  <p><button type="submit">${button}</button></p>
</form>
</body></html>`;

export async function startSignupSite(): Promise<SignupSite> {
  const submissions: Submission[] = [];
  const site: { button: string; moved?: string } = { button: 'Create account' };
  const server: Server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/signup') {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const form = new URLSearchParams(body);
        const sent = {
          name: form.get('name') ?? '',
          email: form.get('email') ?? '',
          password: form.get('password') ?? '',
          plan: form.get('plan') ?? '',
          newsletter: form.get('newsletter') === 'on',
        };
        submissions.push(sent);
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><title>Welcome</title><h1>Welcome, ${sent.name.replace(/[<&]/g, '')}</h1>`);
      });
      return;
    }
    if (request.method === 'GET' && request.url?.startsWith('/signup') && site.moved) {
      response.writeHead(302, { location: site.moved, 'cache-control': 'no-store' }).end();
      return;
    }
    if (request.method === 'GET' && request.url?.startsWith('/signup')) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(form(site.button));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return Object.assign(site, {
    url: `http://127.0.0.1:${port}/signup`,
    submissions,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
