import { declareKind, zoneField } from './declaration';

/** A zone's page security settings (`/zones/{zone_id}/page_guard`): one per zone, taken over at create, put back at delete. */
export const PageGuardSettingsKind = declareKind('PageGuardSettings', {
  fields: [zoneField('replace'), { input: 'enabled', wire: 'enabled', change: 'update' }, { input: 'useVendorReportingEndpoint', wire: 'use_vendor_reporting_endpoint', change: 'update' }, { input: 'useConnectionUrlPath', wire: 'use_connection_url_path', change: 'update' }],
  outputs: ['updatedAt', 'previous'],
  identity: { object: 'pageGuardSettings', scope: 'zone', noun: 'the page security settings of zone', marker: 'none' },
});
