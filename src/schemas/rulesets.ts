import { z } from 'zod';
import { HEX_ID_PATTERN, TimestampSchema } from './common';

// The rulesets API's wire shapes (docs/service.md#rulesets): entry points of a zone's phases and their rules.

/** Phase of the entry point the migration writes: the WAF managed rules. */
export const MANAGED_PHASE = 'http_request_firewall_managed';

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

/** One rule override inside an execute rule's action_parameters. */
export const RuleOverrideSchema = z.object({
  id: z.string().min(1, 'must name a managed rule id'),
  action: z.string().optional(),
  enabled: z.boolean().optional(),
  score_threshold: z.number().int().min(1).optional(),
});
export type RuleOverride = z.infer<typeof RuleOverrideSchema>;

/** One category (tag) override inside an execute rule's action_parameters. */
export const CategoryOverrideSchema = z.object({
  category: z.string().min(1, 'must name a category'),
  action: z.string().optional(),
  enabled: z.boolean().optional(),
});
export type CategoryOverride = z.infer<typeof CategoryOverrideSchema>;

/** Overrides of a managed ruleset execution. */
export const OverridesSchema = z.object({
  action: z.string().optional(),
  enabled: z.boolean().optional(),
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

/** The saved entry point ruleset the update answers. */
export const SavedRulesetSchema = EntrypointRulesetSchema.extend({
  id: z.string(),
  kind: z.string().optional(),
  phase: z.string().optional(),
  version: z.string().optional(),
  last_updated: TimestampSchema.optional(),
});
export type SavedRuleset = z.infer<typeof SavedRulesetSchema>;

