// The refs the migration gives the rules it submits, so that a WafManagedRules declared with the same refs takes the
// migrated entry point over with one write, its owner marker, and no change of rules. Pure.
import { type EntrypointRuleset } from '../schemas';
import { MANAGED_RULESET_ID } from '../schemas/service';
import { OWASP_RULESET_ID } from '../schemas/service';

/** The ref of the execute rule of each managed ruleset the conversion deploys. */
export const MIGRATION_REFS: Readonly<Record<string, string>> = {
  [MANAGED_RULESET_ID]: 'managed-ruleset',
  [OWASP_RULESET_ID]: 'owasp-core-ruleset',
};

/**
 * The converted configuration with a ref on every rule that has none: the execute rules by their ruleset
 * (MIGRATION_REFS), the skip rules (firewall rules that bypassed the WAF) `exception-1`, `exception-2`, ... in
 * order. Without a ref the service gives each rule its id as ref (docs/emulator.md), which no program can declare
 * in advance. Refs are unique: a repeat gets `-2`, `-3`.
 */
export function withMigrationRefs(ruleset: EntrypointRuleset): EntrypointRuleset {
  const taken = new Set(ruleset.rules.flatMap((rule) => (rule.ref ? [rule.ref] : [])));
  let exceptions = 0;
  const unique = (base: string) => {
    let ref = base;
    for (let n = 2; taken.has(ref); n += 1) ref = `${base}-${n}`;
    taken.add(ref);
    return ref;
  };
  return {
    ...ruleset,
    rules: ruleset.rules.map((rule) => {
      if (rule.ref) return rule;
      const executed = rule.action === 'execute' ? rule.action_parameters?.id : undefined;
      const base = executed !== undefined ? (MIGRATION_REFS[executed] ?? `execute-${executed}`) : `exception-${(exceptions += 1)}`;
      return { ...rule, ref: unique(base) };
    }),
  };
}
