import { z } from 'zod';
import { expressionCheckFailures } from '../expression/failures';
import { FIREWALL_LIMITS, FilterExpressionSchema, FirewallActionSchema, FirewallProductSchema, HexIdSchema, ZoneIdSchema } from '../schemas';
import { FirewallRuleCreateItemSchema } from '../schemas/firewall-rules';
import { ownTextSchema } from '../schemas/owner-marker';
import { adoption, declareKind, inPlace, zoneField, type Field, type Identity } from './declaration';
import { TakeOverSchema } from './marker';

/**
 * A firewall rule's own fields as its field table holds them, in place in both forms and under the same names on the
 * wire (docs/service.md#area-b-firewall-rules): `products` goes on the wire with bypass only (the service refuses it
 * with another action), and an empty list in an answer is none.
 */
export const firewallRuleFields = () => [
  ...inPlace('action', 'paused', 'priority', 'description', 'ref'),
  {
    input: 'products',
    wire: 'products',
    change: 'update',
    toWire: (products, inputs) => (inputs.action === 'bypass' && Array.isArray(products) ? [...(products as unknown[])] : undefined),
    fromWire: (products) => (Array.isArray(products) && products.length > 0 ? [...(products as unknown[])] : undefined),
  } satisfies Field<'products'>,
];

/** A firewall rule is one object whichever kind holds it. */
export const FIREWALL_RULE_IDENTITY = {
  object: 'firewallRule',
  scope: 'object',
  idOutput: 'ruleId',
  adoptInput: 'adoptRuleId',
  noun: 'firewall rule',
  marker: 'ref',
  markerMax: FIREWALL_LIMITS.refMax,
} as const satisfies Identity;

const wire = FirewallRuleCreateItemSchema.shape;

/** A filter's expression as check validates it: the service's length limits, then the rules-language checker. */
export const CheckedExpressionSchema = FilterExpressionSchema.superRefine((text, ctx) => {
  // An empty or too long expression is already reported by the length checks: one failure per field.
  if (text.length === 0 || text.length > FIREWALL_LIMITS.expressionMax) return;
  for (const message of expressionCheckFailures(text)) ctx.addIssue({ code: 'custom', message });
});

/** The inputs of a rule's own fields, with their defaults (docs/service.md#filters: the limits). */
export const RULE_ARGS = {
  paused: z.boolean().default(false),
  /** null: the service orders the rule itself. */
  priority: wire.priority.unwrap().default(null),
  description: wire.description.unwrap().default(''),
  // Its own text: the owner marker takes room of the service's limit (docs/ownership.md).
  ref: ownTextSchema(FIREWALL_LIMITS.refMax).default(''),
  products: z.array(FirewallProductSchema).optional(),
};

/** The inputs every firewall rule has, whichever form: its zone, its own fields and its adoption. */
export const RULE_INPUTS = { zoneId: ZoneIdSchema, action: FirewallActionSchema, ...RULE_ARGS, adoptRuleId: HexIdSchema.optional(), takeOver: TakeOverSchema };

/** A firewall rule on a filter by id, the second call of the two-call flow (docs/service.md#two-flows). */
export const FirewallRuleKind = declareKind('FirewallRule', {
  args: z.object({ ...RULE_INPUTS, filterId: HexIdSchema }).strict(),
  fields: [zoneField('replace'), { input: 'filterId', wire: 'filter.id', change: 'update' }, ...firewallRuleFields(), ...adoption('adoptRuleId')],
  outputs: ['ruleId'],
  identity: FIREWALL_RULE_IDENTITY,
  // A filter id of the right shape that names nothing: check reads no filter.
  example: { filterId: 'b0e7337e95bc424b303e1bd1243c6b44', action: 'block' },
  createdWith: ['filterId'],
});
