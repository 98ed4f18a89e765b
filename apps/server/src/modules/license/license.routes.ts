/**
 * `/license` (docs/api.md, "Licence"): read the licence in force and change it. Administrators
 * only; every change is audited (entity `license`).
 */
import { licenseActivateSchema, licenseInfoSchema } from '@voxplan/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { assertAllowed, scopeOf } from '../../plugins/auth.ts';

export function registerLicenseRoutes(app: FastifyInstance, ctx: AppContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['license'];
  const response = { 200: licenseInfoSchema };
  const adminOnly = { preValidation: async (request: Parameters<typeof scopeOf>[0]) => assertAllowed(scopeOf(request).actor, 'admin', true) };

  routes.get('/license', { schema: { tags, response, description: 'The licence in force, its limits and their use; state without_license when there is none.' } }, async (request) => {
    assertAllowed(scopeOf(request).actor, 'admin', false);
    return ctx.license.info();
  });

  routes.post(
    '/license',
    {
      ...adminOnly,
      schema: {
        tags,
        body: licenseActivateSchema,
        response,
        description:
          'Activates a licence document (pasted, or the text of the uploaded file). 400 license_decrypt_error (not a licence), license_invalid_signature ' +
          '(changed, or not the vendor’s), license_invalid_serial, license_hardware_mismatch (another server’s), license_missing_hardware_id; 409 license_already_licensed ' +
          'while another licence is in force.',
      },
    },
    async (request) => ctx.license.activate(request.body.license, scopeOf(request)),
  );

  routes.post(
    '/license/refresh',
    { ...adminOnly, schema: { tags, response, description: 'Reads the stored licence again and checks it (signature, hardware id, expiry). 404 license_not_found.' } },
    async () => ctx.license.refresh(),
  );

  routes.post(
    '/license/sync',
    {
      ...adminOnly,
      schema: {
        tags,
        response,
        description:
          'Asks the licence server (general setting license_server_url) for the licence’s latest document, which may renew, block or cancel it. ' +
          '400 license_missing_configuration without a server, 404 license_not_found, 502 license_sync_error when it cannot be reached or answers no usable licence.',
      },
    },
    async (request) => ctx.license.sync(scopeOf(request)),
  );

  routes.delete('/license', { ...adminOnly, schema: { tags, response, description: 'Removes the licence: the default limits apply. 404 license_not_found.' } }, async (request) =>
    ctx.license.remove(scopeOf(request)),
  );
}
