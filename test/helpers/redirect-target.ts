/**
 * A client application on loopback: `/home?to=URL` is its page with one link (`#start`) to URL
 * (where a person starts signing in); every other request is the redirect target's small page.
 */
import { createServer, type Server } from 'node:http';

export interface RedirectTarget {
  /** `http://127.0.0.1:PORT/callback` */
  readonly callback: string;
  /** The application's page whose one link, `#start`, leads to `href` (an authorization URL). */
  home(href: string): string;
  close(): Promise<void>;
}

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escape = (s: string): string => s.replace(/[&<>"]/g, (c) => ENTITIES[c] ?? c);

function homePage(href: string): string {
  return `<!doctype html><html lang="en"><title>The application</title><main><h1>The application</h1><p><a id="start" href="${escape(href)}">Sign in</a></p></main></html>`;
}

export async function startRedirectTarget(): Promise<RedirectTarget> {
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const to = url.pathname === '/home' ? url.searchParams.get('to') : null;
    if (to !== null) return res.end(homePage(to));
    res.end('<!doctype html><title>Back at the application</title><p id="landed">Back at the application</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  return {
    callback: `${origin}/callback`,
    home: (href) => `${origin}/home?${new URLSearchParams({ to: href }).toString()}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
