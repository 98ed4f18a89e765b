import { webhookDeliverySchema } from '@voxplan/contracts';
import { z } from 'zod';
import { defineResource, type Row } from '../../resources/definition.ts';
import { presentDelivery } from './plan-webhook.service.ts';

/**
 * Read-only: the tenant's plan webhook deliveries, so that its members see what was sent and what
 * failed. Rows are written by enqueuePlanEvent and the dispatcher; the one action on them is
 * "redeliver now" (plan-webhook.routes.ts).
 */
export const webhookDeliveriesResource = defineResource({
  entity: 'webhook_delivery',
  path: '/webhook-deliveries',
  table: 'webhook_deliveries',
  tenantOwned: true,
  readOnly: true,
  read: 'member',
  write: 'member',
  fields: {
    id: 'integer',
    tenant_id: 'integer',
    plan_id: 'integer',
    url: 'string',
    event: 'string',
    status: 'string',
    attempts: 'integer',
    last_status: 'integer',
    last_error: 'string',
    next_attempt_time: 'date',
    lease_until: 'date',
    created_time: 'date',
    delivered_time: 'date',
  },
  defaultOrder: [{ field: 'id', direction: 'desc' }],
  output: webhookDeliverySchema,
  createInput: z.never(),
  updateInput: z.never(),
  present: (rows: Row[]) => rows.map(presentDelivery),
});
