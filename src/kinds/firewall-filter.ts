import { z } from 'zod';
import { HexIdSchema, ZoneIdSchema } from '../schemas';
import { FIREWALL_LIMITS } from '../schemas/filters';
import { adoption, declareKind, inPlace, zoneField } from './declaration';
import { TakeOverSchema } from './marker';
import { CheckedExpressionSchema, RULE_ARGS } from './firewall-rule';

/** A filter of the two-call flow (`/zones/{zone_id}/filters`): every field changes in place, for every rule on it (docs/service.md#filters). */
export const FirewallFilterKind = declareKind('FirewallFilter', {
  args: z
    .object({
      zoneId: ZoneIdSchema,
      expression: CheckedExpressionSchema,
      // A filter's description, paused and ref have a rule's limits and defaults (docs/service.md#filters).
      description: RULE_ARGS.description,
      paused: RULE_ARGS.paused,
      ref: RULE_ARGS.ref,
      adoptFilterId: HexIdSchema.optional(),
      takeOver: TakeOverSchema,
    })
    .strict(),
  fields: [zoneField('replace'), ...inPlace('expression', 'description', 'paused', 'ref'), ...adoption('adoptFilterId')],
  outputs: ['filterId'],
  identity: {
    object: 'filter',
    scope: 'object',
    idOutput: 'filterId',
    adoptInput: 'adoptFilterId',
    noun: 'filter',
    marker: 'ref',
    markerMax: FIREWALL_LIMITS.refMax,
  },
  example: { expression: '(http.request.uri.path eq "/admin")' },
  createdWith: ['expression'],
});
