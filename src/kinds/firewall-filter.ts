import { createOnly, declareKind, inPlace, zoneField } from './declaration';

/** A filter of the two-call flow (`/zones/{zone_id}/filters`): every field changes in place, for every rule on it (docs/service.md#filters). */
export const FirewallFilterKind = declareKind('FirewallFilter', {
  fields: [zoneField('replace'), ...inPlace('expression', 'description', 'paused', 'ref'), createOnly('adoptFilterId')],
  outputs: ['filterId'],
  identity: { object: 'filter', scope: 'object', idOutput: 'filterId', adoptInput: 'adoptFilterId', noun: 'filter', marker: 'ref' },
});
