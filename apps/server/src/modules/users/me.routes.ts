import { passwordChangeSchema, profileSchema, profileUpdateSchema } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest, notFound } from '../../errors.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import { actorOf, scopeOf } from '../../plugins/auth.ts';
import { replacePassword } from './user-password.ts';
import { usersResource } from './users.resource.ts';
import { ResourceService } from '../../resources/service.ts';

/** The signed-in user's own account: who am I, my profile, my password. */
export function registerMeRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['me'];
  const users = new ResourceService(usersResource, ctx);

  async function profile(userId: number) {
    const row = await ctx.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (!row) throw notFound('user_not_found');
    const [user] = await usersResource.present!([row], ctx.db, ctx);
    return { id: user!.id, email: user!.email, name: user!.name, username: user!.username, roles: user!.roles };
  }

  routes.get('/whoami', { schema: { tags, response: { 200: profileSchema } } }, async (request) => profile(actorOf(request).userId));

  routes.patch('/me', { schema: { tags, body: profileUpdateSchema, response: { 200: profileSchema } } }, async (request) => {
    const scope = scopeOf(request);
    // Changing one's own name or e-mail is allowed to every role, guests included.
    await users.patchAsOwner(scope, scope.actor.userId, request.body);
    return profile(scope.actor.userId);
  });

  routes.post('/me/password', { schema: { tags, body: passwordChangeSchema, response: { 204: z.null() } } }, async (request, reply) => {
    const scope = scopeOf(request);
    const { current_password, password, confirmation } = request.body;
    if (password !== confirmation) throw badRequest('passwords_do_not_match', [{ path: 'confirmation', message: 'does not match' }]);
    const row = await ctx.db.selectFrom('users').select(['id', 'password']).where('id', '=', scope.actor.userId).executeTakeFirst();
    if (!row) throw notFound('user_not_found');
    if (!(await verifyPassword(row.password, current_password))) {
      throw badRequest('wrong_password', [{ path: 'current_password', message: 'wrong password' }]);
    }
    await replacePassword(ctx.db, scope, row.id, password, { keepSessionId: scope.actor.sessionId });
    return reply.status(204).send(null);
  });
}
