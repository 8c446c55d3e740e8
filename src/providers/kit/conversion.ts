// The delete of a legacy firewall resource (FirewallRuleWithFilter, FirewallFilter, FirewallRule) on a zone whose
// firewall rules the service converted into custom rules (docs/firewall-and-migration.md#move): the legacy API then
// refuses every write (maintenance: 10020) or every call (retired: 410), and the rule lives on as a custom rule. The
// resource leaves the state with one line naming that custom rule, and nothing is deleted or written. What tells the
// conversion, without a call the service would refuse:
// - a CustomRule took over a custom rule that carried this resource's owner marker (the conversion keeps the legacy
//   rule's ref, marker included: docs/service.md#legacy-conversion), in this run or an earlier one (its state records
//   the marker it took over: a move interrupted between its adoptions and its deletes), or the zone's custom phase
//   still holds a rule with this resource's marker: that rule is this one's conversion;
// - another legacy resource of the zone was found converted in this run (the service converts a zone's rules at once).
// Failing those, the legacy API's own refusal (withConversion, below).
import { RetiredApiError } from '../../client/errors';
import { CUSTOM_PHASE, type SavedRuleset } from '../../schemas';
import { splitMarked } from '../../schemas/owner-marker';
import type { ResourceKind } from './closure';
import type { ZoneGuardClient } from '../../client';
import { contextOf } from './context';
import { ProviderError, unlessNotFound, type Implementation } from './implementation';
import { heldMarker, recordedMarker } from './marker';
import { deletedByMove, noteDeclared, noteOurs, resetMoveDeletes, takenOverFrom } from './move-deletes';

/** The kinds of the legacy firewall rules and filters API, whose deletes this guard wraps. */
export const LEGACY_FIREWALL_KINDS: readonly ResourceKind[] = ['FirewallRuleWithFilter', 'FirewallFilter', 'FirewallRule'];

/** How a legacy resource's conversion was told: its custom rule (when known), and from what. */
export interface Conversion {
  readonly customRuleId?: string;
  readonly how: 'taken over' | 'taken over before' | 'marked' | 'zone converted' | 'retired' | 'maintenance';
}

// Per provider process (one per deployment: kit/ownership.ts): the zones found converted; each zone's custom phase,
// read at most once. The custom rules taken over from a legacy marker are kit/move-deletes.ts's `takenOverFrom`.
const convertedZones = new Set<string>();
const phases = new Map<string, Promise<SavedRuleset | undefined>>();

/** For tests: forget what this process saw, as a new provider process would. */
export function resetConversions(): void {
  convertedZones.clear();
  phases.clear();
  resetMoveDeletes();
}

/**
 * The zone's custom phase, read once per zone and run; undefined when it has none or cannot be read. Only a hint: a
 * token of the legacy API alone (no rulesets API) deletes as before, and the legacy API's refusal then speaks.
 */
function customPhase(client: ZoneGuardClient, zoneId: string): Promise<SavedRuleset | undefined> {
  let phase = phases.get(zoneId);
  if (!phase) {
    phase = unlessNotFound(() => client.rulesets.getEntrypoint({ zoneId, phase: CUSTOM_PHASE }), undefined).catch(() => undefined);
    phases.set(zoneId, phase);
  }
  return phase;
}

/**
 * The custom rule that is the conversion of the object marked `marker`, from what this run took over and the zone's
 * custom phase (one read per zone and run), or undefined when neither knows one.
 */
async function conversionOf(client: ZoneGuardClient, zoneId: string, marker: string): Promise<Conversion | undefined> {
  const taken = takenOverFrom(marker);
  if (taken !== undefined) return { customRuleId: taken.id, how: taken.earlier ? 'taken over before' : 'taken over' };
  const phase = await customPhase(client, zoneId);
  const rule = phase?.rules.find((candidate) => splitMarked(candidate.ref).marker === marker);
  return rule?.id === undefined ? undefined : { customRuleId: rule.id, how: 'marked' };
}

/** The line a converted legacy resource leaves the state with. Pure. */
export function convertedLine(what: string, conversion: Conversion): string {
  const rule = conversion.customRuleId === undefined ? 'its custom rule' : `custom rule ${conversion.customRuleId}`;
  const why: Record<Conversion['how'], string> = {
    'taken over': `${rule} holds its conversion, taken over in this run`,
    'taken over before': `${rule} holds its conversion, taken over by a resource of this stack in an earlier run`,
    marked: `${rule} holds its conversion and still carries this resource's owner marker: declare a CustomRule with adoptRuleId: '${conversion.customRuleId ?? ''}' and takeOver: true to manage it`,
    'zone converted': 'the zone\'s other legacy rules were found converted in this run',
    retired: 'the legacy API answers 410 Gone',
    maintenance: 'the legacy API refused the delete as in maintenance (10020)',
  };
  return (
    `zoneguard: ${what}: the zone's firewall rules were converted to custom rules (${why[conversion.how]}); ` +
    'nothing is deleted: the resource leaves the state, and the zone\'s custom rules stay (docs/firewall-and-migration.md#move)'
  );
}

/** Whether a failure is the legacy API's refusal of a retired or converted zone (410, or 10020 in maintenance). */
function refusedAsRetired(error: unknown): RetiredApiError | undefined {
  const cause = error instanceof ProviderError ? error.cause : error;
  return cause instanceof RetiredApiError ? cause : undefined;
}

/**
 * The implementation of a legacy firewall kind whose delete leaves the state without a call, when the zone's firewall
 * rules were converted (above). Where nothing tells it (a filter whose rules are not in the stack, a conversion taken
 * over outside this stack), the delete is sent as before, and the legacy API's refusal (410 on its read, 10020 on the
 * delete itself) is taken as the sign: the resource leaves the state, nothing deleted. While the API is available, a
 * move's deletes go last-run first (kit/move-deletes.ts).
 */
export function withConversion(kind: ResourceKind, impl: Implementation): Implementation {
  // What a resource of this run declares, which a move's ordered deletes leave alone (kit/move-deletes.ts).
  const declare = (id: string, props: Record<string, unknown> | undefined) => {
    noteDeclared(kind === 'FirewallFilter' ? 'filter' : 'rule', id);
    if (kind !== 'FirewallFilter') noteDeclared('filter', props?.filterId);
  };
  return {
    ...impl,

    async diff(id, olds, news) {
      declare(id, olds);
      return impl.diff(id, olds, news);
    },

    async create(inputs) {
      const result = await impl.create(inputs);
      declare(result.id, result.outs);
      return result;
    },

    // A resource of this stack's state: its marker is ours (an `up --refresh` reads the removed ones before any delete).
    async read(id, props) {
      noteOurs(recordedMarker(props));
      return impl.read(id, props);
    },

    async delete(id, props) {
      const zoneId = String(props.zoneId);
      const ctx = contextOf(kind, props);
      const marker = heldMarker(kind, props);
      noteOurs(recordedMarker(props));
      const conversion = kind === 'FirewallFilter' ? undefined : await conversionOf(ctx.client, zoneId, marker);
      const known = conversion ?? (convertedZones.has(zoneId) ? { how: 'zone converted' as const } : undefined);
      if (known) {
        convertedZones.add(zoneId);
        console.error(convertedLine(ctx.label(id), known));
        return;
      }
      // Available: the rules this run moved to custom rules go last-run first, this one perhaps among them (kit/move-deletes.ts).
      const phase = async () => (await customPhase(ctx.client, zoneId))?.rules ?? [];
      if (await deletedByMove(ctx.client, zoneId, kind === 'FirewallFilter' ? 'filter' : 'rule', id, phase)) return;
      try {
        await impl.delete(id, props);
      } catch (error) {
        const refusal = refusedAsRetired(error);
        if (!refusal) throw error;
        convertedZones.add(zoneId);
        console.error(convertedLine(ctx.label(id), { how: refusal.status === 410 ? 'retired' : 'maintenance' }));
      }
    },
  };
}
