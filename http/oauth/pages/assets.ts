/**
 * The files the sign-in pages load from this server (their CSP allows no other): the stylesheet,
 * with the configured colours, and the logo, when one is configured.
 */
import { z } from 'zod';
import { HttpProblem } from '../../problems.ts';
import { problem } from '../../openapi/replies.ts';
import { route, type Route } from '../../route-table.ts';
import { PUBLIC } from '../../guards.ts';
import type { SignInSite } from './sign-in-site.ts';
import { LOGO_PATH, STYLESHEET_PATH } from './themed-pages.ts';

/** Short enough that a changed theme or logo shows within minutes of a restart. */
const CACHE = 'public, max-age=300';

/** An SVG opened on its own runs no script and loads nothing; its inline styles apply. */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

export function signInAssetRoutes(site: SignInSite): Route[] {
  return [
    route(
      {
        method: 'GET',
        path: STYLESHEET_PATH,
        access: PUBLIC,
        tag: 'secured',
        summary: 'The stylesheet of the sign-in, consent and error pages, in the configured colours',
        replies: {
          200: { description: 'CSS', schema: z.string(), type: 'text/css', headers: ['Cache-Control'] },
        },
      },
      async function signInStylesheet(ctx) {
        ctx.set({ 'Cache-Control': CACHE, 'X-Content-Type-Options': 'nosniff' });
        ctx.type = 'text/css; charset=utf-8';
        ctx.body = site.stylesheet;
      },
    ),
    route(
      {
        method: 'GET',
        path: LOGO_PATH,
        access: PUBLIC,
        tag: 'secured',
        summary: 'The logo of the sign-in pages (`security.sign-in.logo`): PNG, SVG, JPEG or WebP',
        replies: {
          200: {
            description: 'The image: image/png, image/svg+xml, image/jpeg or image/webp',
            schema: z.string(),
            type: 'image/*',
            headers: ['Cache-Control'],
          },
          404: problem('No logo is configured'),
        },
      },
      async function signInLogo(ctx) {
        const logo = site.logo;
        if (logo === undefined) throw new HttpProblem(404, 'not_found', 'No logo is configured');
        ctx.set({ 'Cache-Control': CACHE, 'X-Content-Type-Options': 'nosniff' });
        if (logo.type === 'image/svg+xml') ctx.set('Content-Security-Policy', SVG_CSP);
        ctx.type = logo.type;
        ctx.body = logo.body;
      },
    ),
  ];
}
