// What the migration changes or drops for a zone (docs/service.md#migration-conversion), written as notes a user
// reads before and after submitting. Pure and deterministic.
import { ACTION_CONVERSION, MANAGED_RULESET_NAMES, type MigrationState, type WafActionMode, type WafPackage, type WafSensitivity } from '../schemas';
import { MANAGED_RULESET_ID, sensitivityConversion } from '../schemas/service';
import { OWASP_RULESET_ID } from '../schemas/service';
import type { FirewallRuleFacts } from './limits';

/** How the previous OWASP core rule set carries over. */
export interface CoreRuleSetConversion {
  sensitivity: WafSensitivity;
  paranoiaLevel: 'PL1' | 'PL2';
  scoreThreshold: number;
  thresholdLevel: 'High' | 'Medium';
  previousAction: WafActionMode;
  action: string;
  /** Sensitivity off: the new ruleset is deployed disabled. */
  enabled: boolean;
}

/**
 * What the migration changes or drops, computed from the previous WAF (packages) and the zone's firewall rules as
 * read before submitting. Deterministic: the same zone gives the same notes, in the same order.
 */
export interface WafConversion {
  /** The previous OWASP core rule set and what it becomes; null when the zone had none. */
  coreRuleSet: CoreRuleSetConversion | null;
  /** Firewall rules bypassing the WAF managed rules; the migration recreates each as a skip rule. */
  bypassRuleIds: string[];
  /** One line per setting the conversion carries over in another form. */
  changed: string[];
  /** One line per setting the conversion does not carry over. */
  dropped: string[];
  /** One line per adjustment applied on top of the converted configuration. */
  adjusted: string[];
  /** Set when this resource converted nothing (the zone had migrated before it existed). */
  note: string | null;
}

/** Facts about the previous WAF that feed {@link conversionNotes}. */
export interface PreviousWafFacts {
  /** The previous WAF packages; empty when the zone had none, or its previous WAF API is withdrawn. */
  packages: readonly WafPackage[];
  firewallRules: readonly FirewallRuleFacts[];
  adjusted?: readonly string[];
}

/** The conversion notes of docs/service.md#migration-conversion, for this zone. */
export function conversionNotes({ packages, firewallRules, adjusted = [] }: PreviousWafFacts): WafConversion {
  const changed: string[] = [];
  const dropped: string[] = [];
  const bypassRuleIds = firewallRules
    .filter((rule) => rule.action === 'bypass' && (rule.products ?? []).includes('waf'))
    .map((rule) => rule.id)
    .sort();
  for (const id of bypassRuleIds) {
    changed.push(`firewall rule ${id} bypasses the WAF managed rules: recreated as a skip rule of the new configuration`);
  }
  if (packages.some((p) => p.detection_mode === 'traditional')) {
    changed.push(`the previous managed rules package becomes an execute rule of the ${MANAGED_RULESET_NAMES[MANAGED_RULESET_ID]}`);
  }
  const owasp = packages.find((p) => p.detection_mode === 'anomaly');
  let coreRuleSet: CoreRuleSetConversion | null = null;
  if (owasp) {
    const sensitivity = owasp.sensitivity ?? 'default';
    const conversion = sensitivityConversion(sensitivity);
    const paranoiaLevel = `PL${conversion.paranoiaLevel}` as const;
    const previousAction = owasp.action_mode ?? 'block';
    coreRuleSet = {
      sensitivity,
      paranoiaLevel,
      scoreThreshold: conversion.scoreThreshold,
      thresholdLevel: conversion.thresholdLevel,
      previousAction,
      action: ACTION_CONVERSION[previousAction],
      enabled: sensitivity !== 'off',
    };
    changed.push(
      sensitivity === 'off'
        ? `core rule set sensitivity off: the ${MANAGED_RULESET_NAMES[OWASP_RULESET_ID]} is deployed disabled (paranoia level ${paranoiaLevel}, score threshold ${conversion.thresholdLevel}, ${conversion.scoreThreshold} or higher, once enabled)`
        : `core rule set sensitivity ${sensitivity}: paranoia level ${paranoiaLevel}, score threshold ${conversion.thresholdLevel} (${conversion.scoreThreshold} or higher)`,
    );
    changed.push(
      previousAction === 'simulate'
        ? 'core rule set action simulate becomes log (the new ruleset has no simulate)'
        : `core rule set action ${previousAction} stays ${ACTION_CONVERSION[previousAction]}`,
    );
    dropped.push(
      'group overrides and rule overrides of the previous core rule set are not migrated: recreate the ones you need as category or rule overrides of the new ruleset (adjustments.categories, adjustments.rules)',
    );
  }
  if (packages.length > 0) {
    dropped.push('some specific configurations of the previous core rule set may be lost in the conversion; review the converted configuration');
  }
  return { coreRuleSet, bypassRuleIds, changed, dropped, adjusted: [...adjusted], note: null };
}

/** The notes of a zone whose migration finished before this resource existed: nothing was converted by it. */
export function adoptedConversion(state: MigrationState | string): WafConversion {
  return {
    coreRuleSet: null,
    bypassRuleIds: [],
    changed: [],
    dropped: [],
    adjusted: [],
    note: `the zone's migration was already ${state} when this resource was created: it submitted nothing and converted nothing`,
  };
}
