import { loginSchema, tokenSchema } from '@voxplan/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { AuthService } from './auth.service.ts';

export const REFRESH_COOKIE = 'voxplan_refresh';
const COOKIE_PATH = '/api/v1';

/** Public routes: they are how a client gets credentials in the first place. */
export function registerAuthRoutes(app: FastifyInstance, ctx: AppContext): AuthService {
  const auth = new AuthService(ctx);
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['auth'];
  const secure = ctx.config.publicUrl.startsWith('https:');

  const setRefreshCookie = (reply: FastifyReply, token: string) =>
    reply.setCookie(REFRESH_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      secure,
      path: COOKIE_PATH,
      maxAge: ctx.config.refreshTokenTtlSeconds,
    });
  const refreshCookieOf = (request: FastifyRequest) => request.cookies[REFRESH_COOKIE];

  routes.post('/login', { schema: { tags, body: loginSchema, response: { 200: tokenSchema } } }, async (request, reply) => {
    const issued = await auth.login(request.body.username, request.body.password, {
      ip: request.ip,
      userAgent: request.headers['user-agent'],
    });
    setRefreshCookie(reply, issued.refreshToken);
    return { token: issued.accessToken };
  });

  routes.get('/refresh', { schema: { tags, response: { 200: tokenSchema } } }, async (request, reply) => {
    try {
      const issued = await auth.refresh(refreshCookieOf(request));
      setRefreshCookie(reply, issued.refreshToken);
      return { token: issued.accessToken };
    } catch (error) {
      reply.clearCookie(REFRESH_COOKIE, { path: COOKIE_PATH });
      throw error;
    }
  });

  routes.post('/logout', { schema: { tags, response: { 204: z.null() } } }, async (request, reply) => {
    // Signing out must work with an expired access token, so the token is read, not required.
    let sessionId: string | undefined;
    if (request.headers.authorization) {
      try {
        await app.authenticate(request);
        sessionId = request.actor?.sessionId;
      } catch {
        sessionId = undefined;
      }
    }
    await auth.logout(refreshCookieOf(request), sessionId);
    reply.clearCookie(REFRESH_COOKIE, { path: COOKIE_PATH });
    return reply.status(204).send(null);
  });

  return auth;
}
