import { z } from 'zod';
import { ZoneIdSchema } from '../schemas';
import { PageGuardSettingsUpdateSchema } from '../schemas/page-guard';
import { declareKind, inPlace, zoneField } from './declaration';

const wire = PageGuardSettingsUpdateSchema.shape;

/** A zone's page security settings (`/zones/{zone_id}/page_guard`): one per zone, taken over at create, put back at delete. */
export const PageGuardSettingsKind = declareKind('PageGuardSettings', {
  // The two optional flags are managed only when declared.
  args: z
    .object({
      zoneId: ZoneIdSchema,
      enabled: wire.enabled.unwrap(),
      useVendorReportingEndpoint: wire.use_vendor_reporting_endpoint.unwrap().optional(),
      useConnectionUrlPath: wire.use_connection_url_path.unwrap().optional(),
    })
    .strict(),
  fields: [
    zoneField('replace'), ...inPlace('enabled'),
    { input: 'useVendorReportingEndpoint', wire: 'use_vendor_reporting_endpoint', change: 'update' },
    { input: 'useConnectionUrlPath', wire: 'use_connection_url_path', change: 'update' },
  ],
  outputs: ['updatedAt', 'previous'],
  identity: { object: 'pageGuardSettings', scope: 'zone', noun: 'the page security settings of zone', marker: 'none' },
  example: { enabled: true },
});
