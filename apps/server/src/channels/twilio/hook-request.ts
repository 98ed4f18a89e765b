/** What Twilio's hooks read of a request (twilio.routes.ts, outbound-hooks.ts): its form's fields, and what its signature check needs. */
import type { FastifyRequest } from 'fastify';

/** A hook's form fields (application/x-www-form-urlencoded), as Twilio posts them. */
export type Params = Record<string, string>;

/** What a signature check reads of a request: a kept call end checks it again, after the request is gone. */
export type SignedRequest = Pick<FastifyRequest, 'headers' | 'url' | 'log'>;
