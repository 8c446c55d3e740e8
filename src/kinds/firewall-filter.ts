import { declareKind } from './declaration';

/** A filter of the two-call flow (`/zones/{zone_id}/filters`): every field changes in place, for every rule on it (docs/service.md#filters). */
export const FirewallFilterKind = declareKind({
  kind: 'FirewallFilter',
  fields: [
    { input: 'zoneId', wire: 'zone_id', change: 'replace' },
    { input: 'expression', wire: 'expression', change: 'update' },
    { input: 'description', wire: 'description', change: 'update' },
    { input: 'paused', wire: 'paused', change: 'update' },
    { input: 'ref', wire: 'ref', change: 'update' },
    { input: 'adoptFilterId', wire: '', change: 'create' },
  ],
  outputs: ['filterId'],
  identity: { object: 'filter', scope: 'object', idOutput: 'filterId', adoptInput: 'adoptFilterId', noun: 'filter', marker: 'ref' },
});
