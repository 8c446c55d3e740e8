import { z } from 'zod';
import { TYPE_MODULE } from '../kinds';
import { CSP_POLICY_FIELDS, type CspPolicy, type FirewallRule } from '../schemas';

// Objects of a zone that no resource of the given stacks holds: what an interrupted `pulumi up` can leave behind
// (README, "Who owns what"). Pure: the stack exports and the zone's objects are passed in.

const TYPE_PREFIX = `pulumi-nodejs:dynamic/${TYPE_MODULE}:`;

const ResourceStateSchema = z.object({
  urn: z.string(),
  type: z.string(),
  id: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
});

/** What `pulumi stack export` writes, as far as ownership needs it: the resources and the pending operations. */
export const StackExportSchema = z.object({
  deployment: z.object({
    resources: z.array(ResourceStateSchema).nullish(),
    pending_operations: z.array(z.object({ resource: ResourceStateSchema, type: z.string() })).nullish(),
  }),
});
export type StackExport = z.infer<typeof StackExportSchema>;

/** A create the engine started and never recorded the end of (the CLI was killed): its URN and declared inputs. */
export interface PendingCreate {
  urn: string;
  kind: 'CspPolicy' | 'FirewallRuleWithFilter';
  inputs: Record<string, unknown>;
}

/** An object of the zone no resource of the stacks holds; `pendingOf` lists the pending creates it matches. */
export interface Orphan {
  kind: 'CspPolicy' | 'FirewallRuleWithFilter';
  id: string;
  /** One line that says what the object is: a policy's description and expression, a rule's action and expression. */
  summary: string;
  pendingOf: string[];
}

/** The ids the stacks' resources hold in `zoneId`, and their pending creates there. */
export function ownershipOf(exports: readonly StackExport[], zoneId: string): { held: Set<string>; pending: PendingCreate[] } {
  const held = new Set<string>();
  const pending: PendingCreate[] = [];
  for (const { deployment } of exports) {
    for (const resource of deployment.resources ?? []) {
      if (!resource.type.startsWith(TYPE_PREFIX) || resource.id === undefined) continue;
      if (resource.outputs?.zoneId !== zoneId && resource.inputs?.zoneId !== zoneId) continue;
      held.add(resource.id);
    }
    for (const operation of deployment.pending_operations ?? []) {
      const { resource } = operation;
      const kind = resource.type.slice(TYPE_PREFIX.length);
      if (operation.type !== 'creating' || !resource.type.startsWith(TYPE_PREFIX)) continue;
      if ((kind !== 'CspPolicy' && kind !== 'FirewallRuleWithFilter') || resource.inputs?.zoneId !== zoneId) continue;
      pending.push({ urn: resource.urn, kind, inputs: resource.inputs });
    }
  }
  return { held, pending };
}

/** Whether an object is what a pending create declared: every field of a policy; the expression of a rule (its filter's). */
export function matchesPending(kind: Orphan['kind'], object: CspPolicy | FirewallRule, inputs: Record<string, unknown>): boolean {
  if (kind === 'FirewallRuleWithFilter') return (object as FirewallRule).filter.expression === inputs.expression;
  const policy = object as CspPolicy;
  return CSP_POLICY_FIELDS.every((field) => policy[field] === inputs[field]);
}

/** The zone's policies and rules that `held` does not name, each with the pending creates it matches. */
export function findOrphans(
  zone: { cspPolicies: readonly CspPolicy[]; firewallRules: readonly FirewallRule[] },
  ownership: { held: ReadonlySet<string>; pending: readonly PendingCreate[] },
): Orphan[] {
  const of = (kind: Orphan['kind'], object: CspPolicy | FirewallRule, summary: string): Orphan => ({
    kind,
    id: object.id,
    summary,
    pendingOf: ownership.pending.filter((p) => p.kind === kind && matchesPending(kind, object, p.inputs)).map((p) => p.urn),
  });
  return [
    ...zone.cspPolicies.filter((p) => !ownership.held.has(p.id)).map((p) => of('CspPolicy', p, `${JSON.stringify(p.description)} ${p.action} when ${p.expression}`)),
    ...zone.firewallRules
      .filter((r) => !ownership.held.has(r.id))
      .map((r) => of('FirewallRuleWithFilter', r, `${r.action} when ${r.filter.expression}`)),
  ];
}

/**
 * The orphans `--delete-pending` may delete: for each pending create, its one match. A pending create matched by
 * several orphans (identical policies of another stack not passed in, say) deletes none: `refused` names them.
 */
export function pendingDeletions(orphans: readonly Orphan[], pending: readonly PendingCreate[]): { delete: Orphan[]; refused: string[] } {
  const chosen: Orphan[] = [];
  const refused: string[] = [];
  for (const create of pending) {
    const matches = orphans.filter((o) => o.pendingOf.includes(create.urn));
    if (matches.length === 1) chosen.push(matches[0]!);
    else if (matches.length > 1) {
      refused.push(
        `${create.urn}: ${matches.length} objects match its pending create (${matches.map((m) => m.id).join(', ')}); none deleted. ` +
          'Pass the export of every stack on this zone, or delete the right one with --delete <id>',
      );
    }
  }
  return { delete: chosen, refused };
}

/** The adopt input of a kind, for the printed adoption line. */
export const ADOPT_INPUT: Record<Orphan['kind'], string> = { CspPolicy: 'adoptPolicyId', FirewallRuleWithFilter: 'adoptRuleId' };
