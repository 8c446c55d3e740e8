// The wire shapes of the service: one zod schema per object, shared by the client, the providers and the emulator.
import '../node-version'; // first: an unsupported Node fails here, saying what to install
// The package's `pulumi-zoneguard/schemas` and the barrel the other layers import: the wire shapes and the service's
// facts. Helpers that only the layers share (text findings, query parsing, quoting) are imported from their module.
export {
  DetectedStatusSchema,
  EnvelopeSchema,
  HexIdSchema,
  PAGING,
  ResultInfoSchema,
  ZoneIdSchema,
  formatZodIssues,
  repeats,
  type DetectedStatus,
  type Envelope,
  type ErrorItem,
  type ResultInfo,
} from './common';
export { MALICIOUS_SCORE_THRESHOLD, isMalicious, type DetectedKind } from './detected';
export {
  PAGE_GUARD_SETTING_FIELDS,
  PageGuardSettingsSchema,
  type PageGuardSettingName,
  type PageGuardSettingsUpdate,
  type PageGuardSettingsWire,
} from './page-guard';
export {
  ScriptDetailSchema,
  ScriptSchema,
  type Script,
  type ScriptDetail,
  type ScriptVersion,
} from './scripts';
export * from './connections';
export * from './cookies';
export {
  CSP_POLICY_FIELDS,
  cspEnabledToWire,
  CspPolicySchema,
  type CspAction,
  type CspPolicyCreate,
  type CspPolicyField,
  type CspPolicyUpdate,
  type CspPolicyWire,
} from './csp-policy';
export {
  FilterExpressionSchema,
  FilterSchema,
  FIREWALL_LIMITS,
  type Filter,
  type FilterCreate,
  type FilterUpdate,
} from './filters';
export {
  FirewallActionSchema,
  FirewallProductSchema,
  FirewallRuleDeleteResultSchema,
  FirewallRuleSchema,
  productsProblem,
  type FirewallAction,
  type FirewallProduct,
  type FirewallRuleCreateItem,
  type FirewallRuleDeleteResult,
  type FirewallRulePatch,
  type FirewallRuleUpdate,
  type FirewallRuleWire,
} from './firewall-rules';
export {
  CompatibilitySchema,
  MigrationStateSchema,
  WafMigrationModeSchema,
  WafStatusSchema,
  type Compatibility,
  type MigrationState,
  type WafMigrationMode,
  type WafStatus,
} from './waf-migration';
export {
  BLOCK_CONTENT_TYPES,
  CUSTOM_PHASE,
  EntrypointRulesetSchema,
  MANAGED_PHASE,
  MANAGED_PHASE_ACTIONS,
  ManagedRuleIdSchema,
  OverrideActionSchema,
  PHASE_ACTIONS,
  RATELIMIT_PERIODS,
  RATELIMIT_PHASE,
  RATELIMIT_REQUIRED_CHARACTERISTIC,
  RATELIMIT_TIMEOUTS,
  RulesetPhaseSchema,
  RulesetVersionSchema,
  SavedRulesetSchema,
  SKIPPABLE_PHASES,
  SKIPPABLE_PRODUCTS,
  type ActionParameters,
  type BlockResponse,
  type CategoryOverride,
  type EntrypointCreate,
  type EntrypointRuleset,
  type EntrypointUpdate,
  type OverrideAction,
  type Overrides,
  type Ratelimit,
  type RuleCreate,
  type RuleOverride,
  type RulePatch,
  type RulePosition,
  type RulesetPhase,
  type RulesetRule,
  type RulesetVersion,
  type SavedRuleset,
} from './rulesets';
export {
  WafActionModeSchema,
  WafGroupSchema,
  WafOverrideSchema,
  WafPackageSchema,
  WafSensitivitySchema,
  type WafActionMode,
  type WafGroup,
  type WafOverride,
  type WafOverrideCreate,
  type WafPackage,
  type WafSensitivity,
} from './waf-overrides';
export { cspValueProblems } from './csp-value';
// The managed ruleset ids are the package root's (pulumi-zoneguard); the layers import them from ./service.
export { ACTION_CONVERSION, ErrorCode, MANAGED_RULESET_NAMES, SENSITIVITY_CONVERSION, WAF_MIGRATION_LIMITS, expressionBytes } from './service';
export * from './messages';
