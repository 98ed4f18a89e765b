/**
 * The entities the server writes to the audit log, which the audit screen names in the user's
 * language (`audit.entities.<entity>`) and offers in its entity filter. `npm run check` fails when
 * the server audits an entity missing here, or one here has no name in a catalogue.
 */
export const auditEntities = [
  'acl',
  'agi_call',
  'api_key',
  'audio',
  'audit',
  'campaign',
  'configuration',
  'conversation',
  'date_range',
  'destination',
  'do_not_call',
  'holiday',
  'license',
  'outbound_call',
  'report',
  'saved_reply',
  'tenant',
  'tenant_integrations',
  'user',
  'user_password',
  'visual_plan',
  'visual_plan_version',
  'webhook_delivery',
  'webhook_secret',
  'whatsapp_template',
  'whatsapp_templates',
] as const;
