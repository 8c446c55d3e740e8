import { z } from 'zod';
import { HEX_ID_PATTERN, TimestampSchema } from './common';

// The rulesets API's wire shapes (docs/service.md#rulesets): entry points of a zone's phases and their rules.

/** Phase of the entry point the migration writes: the WAF managed rules. */
export const MANAGED_PHASE = 'http_request_firewall_managed';
/** Phase of the custom rules, the legacy firewall rules' successor (docs/service.md#rulesets). */
export const CUSTOM_PHASE = 'http_request_firewall_custom';
/** Phase of the rate limiting rules (docs/service.md#rulesets). */
export const RATELIMIT_PHASE = 'http_ratelimit';

/** The phases whose zone entry points the emulator holds and the client reads and writes. */
export const RulesetPhaseSchema = z.enum([MANAGED_PHASE, CUSTOM_PHASE, RATELIMIT_PHASE], {
  error: `must be one of ${MANAGED_PHASE}, ${CUSTOM_PHASE}, ${RATELIMIT_PHASE}`,
});
export type RulesetPhase = z.infer<typeof RulesetPhaseSchema>;

/** The actions of a custom rule, and of a rate limiting rule (docs/service.md#ruleset-actions). */
export const CUSTOM_ACTIONS = ['block', 'challenge', 'js_challenge', 'managed_challenge', 'log', 'skip'] as const;
export const RATELIMIT_ACTIONS = ['block', 'challenge', 'js_challenge', 'managed_challenge', 'log'] as const;

/** The actions a rule may take in each phase (docs/service.md#rulesets). */
export const PHASE_ACTIONS: Readonly<Record<RulesetPhase, readonly string[]>> = {
  [MANAGED_PHASE]: ['execute', 'skip'],
  [CUSTOM_PHASE]: CUSTOM_ACTIONS,
  [RATELIMIT_PHASE]: RATELIMIT_ACTIONS,
};

/** Phases a custom rule's skip may skip, and the products it may skip (the legacy bypass's, docs/service.md#rulesets). */
export const SKIPPABLE_PHASES = ['http_ratelimit', 'http_request_firewall_managed', 'http_request_sbfm'] as const;
export const SKIPPABLE_PRODUCTS = ['bic', 'hot', 'rateLimit', 'securityLevel', 'uaBlock', 'waf', 'zoneLockdown'] as const;

/** A rate limiting rule's `period` and `mitigation_timeout` values, in seconds (docs/service.md#rulesets). */
export const RATELIMIT_PERIODS = [10, 60, 120, 300, 600, 3600] as const;
export const RATELIMIT_TIMEOUTS = [0, 10, 60, 120, 300, 600, 3600, 86400] as const;
/** The characteristic every rate limiting rule counts by: the data centre (docs/service.md#rulesets). */
export const RATELIMIT_REQUIRED_CHARACTERISTIC = 'cf.colo.id';

/**
 * The most rules a zone's entry point of a phase may hold, by plan (docs/service.md#ruleset-quotas); the managed
 * phase has none of its own.
 */
export const PHASE_RULE_QUOTAS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  [CUSTOM_PHASE]: { free: 5, pro: 20, business: 100, enterprise: 1000 },
  [RATELIMIT_PHASE]: { free: 1, pro: 2, business: 5, enterprise: 100 },
};

/** What a rate limiting rule counts, and what it does over the limit. Lenient: the grammar (src/rulesets) checks the values. */
export const RatelimitSchema = z.object({
  characteristics: z.array(z.string()),
  period: z.number(),
  requests_per_period: z.number().optional(),
  mitigation_timeout: z.number().optional(),
  counting_expression: z.string().optional(),
  requests_to_origin: z.boolean().optional(),
});
export type Ratelimit = z.infer<typeof RatelimitSchema>;

/** A block action's own answer: a status code 400-499 and a body of one content type. */
export const BlockResponseSchema = z.object({
  status_code: z.number().optional(),
  content: z.string().optional(),
  content_type: z.string().optional(),
});
export type BlockResponse = z.infer<typeof BlockResponseSchema>;
/** The content types a block's response may have (public API). */
export const BLOCK_CONTENT_TYPES = ['application/json', 'text/html', 'text/plain', 'text/xml'] as const;

/** Actions an override of a managed rule or category may set (docs/emulator.md, "Entry point rules"). */
export const OverrideActionSchema = z.enum(['block', 'challenge', 'js_challenge', 'managed_challenge', 'log'], {
  error: 'must be one of block, challenge, js_challenge, managed_challenge, log',
});
export type OverrideAction = z.infer<typeof OverrideActionSchema>;

/**
 * Actions a rule of the http_request_firewall_managed entry point may take: execute a managed ruleset, or skip
 * (an exception) what follows it (docs/emulator.md, "Entry point rules").
 */
export const MANAGED_PHASE_ACTIONS = ['execute', 'skip'] as const;

/**
 * The id of a rule of a managed ruleset, as an override or a skip names it (docs/emulator.md, "Entry point rules").
 * One definition for every place that checks one: WafMigration's adjustments and WafManagedRules in `check`, and the
 * emulator's entry point PUT, so a preview cannot pass what `up` is then refused. (The wire schema below stays
 * lenient: the client must not refuse what the service answers.)
 */
export const ManagedRuleIdSchema = z.string().regex(HEX_ID_PATTERN, 'must be a managed rule id: 32 lowercase hexadecimal characters');

/** What an override sets, of a whole managed ruleset, a category or one rule: the action taken, whether it runs. */
const OVERRIDE_SETTINGS = {
  action: z.string().optional(),
  enabled: z.boolean().optional(),
};

/** One rule override inside an execute rule's action_parameters. */
export const RuleOverrideSchema = z.object({
  id: z.string().min(1, 'must name a managed rule id'),
  ...OVERRIDE_SETTINGS,
  score_threshold: z.number().int().min(1).optional(),
});
export type RuleOverride = z.infer<typeof RuleOverrideSchema>;

/** One category (tag) override inside an execute rule's action_parameters. */
export const CategoryOverrideSchema = z.object({
  category: z.string().min(1, 'must name a category'),
  ...OVERRIDE_SETTINGS,
});
export type CategoryOverride = z.infer<typeof CategoryOverrideSchema>;

/** Overrides of a managed ruleset execution. */
export const OverridesSchema = z.object({
  ...OVERRIDE_SETTINGS,
  categories: z.array(CategoryOverrideSchema).optional(),
  rules: z.array(RuleOverrideSchema).optional(),
});
export type Overrides = z.infer<typeof OverridesSchema>;

/**
 * The parameters of a rule's action: for execute, the managed ruleset (`id`) and its `overrides`; for skip, what it
 * skips (`ruleset: "current"`, `rulesets`, or `rules` by ruleset id). Which fit which action is checked where the
 * rule is validated (the emulator), so that a client reading a ruleset does not refuse what the service answers.
 */
export const ActionParametersSchema = z.object({
  id: z.string().min(1, 'must name the managed ruleset to execute').optional(),
  overrides: OverridesSchema.optional(),
  ruleset: z.string().optional(),
  rulesets: z.array(z.string()).optional(),
  rules: z.record(z.string(), z.array(z.string())).optional(),
  phases: z.array(z.string()).optional(),
  products: z.array(z.string()).optional(),
  response: BlockResponseSchema.optional(),
});
export type ActionParameters = z.infer<typeof ActionParametersSchema>;

/** A rule of the entry point ruleset. id, version and ref are empty or omitted in the validation-mode request. */
export const RulesetRuleSchema = z.object({
  id: z.string().optional(),
  version: z.string().optional(),
  action: z.string().min(1, 'must be a rule action, for example execute'),
  expression: z.string().min(1, 'must not be empty (true means all traffic)'),
  description: z.string().optional(),
  ref: z.string().optional(),
  /** Defaults to true, as in the public API. */
  enabled: z.boolean().optional(),
  action_parameters: ActionParametersSchema.optional(),
  ratelimit: RatelimitSchema.optional(),
  logging: z.object({ enabled: z.boolean() }).optional(),
  last_updated: TimestampSchema.optional(),
});
export type RulesetRule = z.infer<typeof RulesetRuleSchema>;

/** The new WAF configuration: response of the config read and body of the entry point update. */
export const EntrypointRulesetSchema = z.object({
  name: z.string().min(1, 'must not be empty'),
  description: z.string().optional(),
  rules: z.array(RulesetRuleSchema),
});
export type EntrypointRuleset = z.infer<typeof EntrypointRulesetSchema>;

/** Body of the entry point PUT: the public API leaves `name` out of what it requires (the saved name is kept). */
export const EntrypointUpdateSchema = EntrypointRulesetSchema.partial({ name: true });
export type EntrypointUpdate = z.infer<typeof EntrypointUpdateSchema>;

/**
 * Body of POST /zones/{zone_id}/rulesets: a new ruleset of the zone. With kind `zone` it is the zone's entry point of
 * `phase`, created only while the zone has none (docs/service.md#ruleset-create).
 */
export const EntrypointCreateSchema = EntrypointRulesetSchema.extend({
  kind: z.string().min(1, 'must be a ruleset kind, for example zone'),
  phase: z.string().min(1, 'must be a phase, for example http_request_firewall_custom'),
});
export type EntrypointCreate = z.infer<typeof EntrypointCreateSchema>;

/** The saved entry point ruleset the update answers. */
export const SavedRulesetSchema = EntrypointRulesetSchema.extend({
  id: z.string(),
  kind: z.string().optional(),
  phase: z.string().optional(),
  version: z.string().optional(),
  last_updated: TimestampSchema.optional(),
});
export type SavedRuleset = z.infer<typeof SavedRulesetSchema>;


/** Where a rule goes in its ruleset: before or after a rule (by id), or at a 1-based index; default last. */
export const RulePositionSchema = z.union(
  [
    z.strictObject({ before: z.string().min(1, 'must name a rule id') }),
    z.strictObject({ after: z.string().min(1, 'must name a rule id') }),
    z.strictObject({ index: z.number().int('must be a whole number').min(1, 'must be at least 1 (the first place)') }),
  ],
  { error: 'must be one of { before: rule id }, { after: rule id }, { index: n }' },
);
export type RulePosition = z.infer<typeof RulePositionSchema>;

/** Body of POST .../rulesets/{ruleset_id}/rules: one rule (the service assigns its id) and where it goes. */
export const RuleCreateSchema = RulesetRuleSchema.omit({ id: true, version: true, last_updated: true }).extend({ position: RulePositionSchema.optional() });
export type RuleCreate = z.infer<typeof RuleCreateSchema>;

/** Body of PATCH .../rulesets/{ruleset_id}/rules/{rule_id}: the fields to change, and maybe a new place. */
export const RulePatchSchema = RuleCreateSchema.partial();
export type RulePatch = z.infer<typeof RulePatchSchema>;

/** A version of a ruleset as the versions list shows it (the public API leaves the rules out). */
export const RulesetVersionSchema = SavedRulesetSchema.omit({ rules: true });
export type RulesetVersion = z.infer<typeof RulesetVersionSchema>;
