import { z } from 'zod';
import { declarationOf } from '../../src/kinds';
import { MARKER_KEY, OWNER_KEY, ownerMarker } from '../../src/kinds/marker';
import { NAME_KEY, implementation } from '../../src/providers';
import { resetOwnership } from '../../src/providers/kit/ownership';
import { CUSTOM_PHASE, RATELIMIT_PHASE, type RulePatch, type RulePosition, type RulesetRule } from '../../src/schemas';
import { withMarker } from '../../src/schemas/owner-marker';
import { MANAGED_RULESET_ID } from '../../src/schemas/service';
import { checkedBy, useProviderFixture, writesIn } from './support';

// Refresh finds drift of every declared field of a CustomRule and a RateLimitRule, and up puts it back: each field
// (each member of an object field) is changed by hand with the per-rule PATCH, then read, diffed, updated and read
// again against the emulator over loopback. The table is checked against the kinds' declarations, so a field added
// later without a drift case fails here.

const fx = useProviderFixture();

type PhaseKind = 'CustomRule' | 'RateLimitRule';
const PHASE = { CustomRule: CUSTOM_PHASE, RateLimitRule: RATELIMIT_PHASE } as const;

/** What a change by hand may use: the rule's marker as written, and the id of the other rule of the phase. */
interface Live {
  marker: string;
  otherId: string;
}

interface DriftCase {
  kind: PhaseKind;
  /** The declared input (`ratelimit.period` for a member of an object input) that drifts. */
  field: string;
  /** What the hand changed. */
  how: string;
  /** The declared rule, every default written out: what a read reports before and after. */
  declared: Record<string, unknown>;
  /** The PATCH by hand, in the wire's names. */
  byHand: (live: Live) => { rule: RulePatch; position?: RulePosition };
  /** What a read reports at `field` after it (undefined: the read reports no value there). */
  reads: unknown;
}

const MANAGED_RULE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const OTHER_MANAGED_RULE = '0f9e8d7c6b5a49382716a5b4c3d2e1f0';

const custom = { action: 'block', expression: '(http.request.uri.path eq "/admin")', description: 'admin', enabled: true, ref: 'admin', position: { before: 'other' } };
const response = { statusCode: 403, content: '{"error":"denied"}', contentType: 'application/json' };
const wireResponse = { status_code: 403, content: '{"error":"denied"}', content_type: 'application/json' };
const skipping = { ...custom, action: 'skip', expression: '(ip.src in {192.0.2.0/24})', skip: { ruleset: 'current', phases: ['http_ratelimit'], products: ['waf'], rules: { [MANAGED_RULESET_ID]: [MANAGED_RULE] } } };
const wireSkip = { ruleset: 'current', phases: ['http_ratelimit'], products: ['waf'], rules: { [MANAGED_RULESET_ID]: [MANAGED_RULE] } };
const ratelimit = { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600, countingExpression: 'http.response.code eq 401', requestsToOrigin: false };
const limited = { ...custom, expression: '(http.request.uri.path eq "/login")', description: 'login', ref: 'login', ratelimit };
const wireLimit = { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requests_per_period: 10, mitigation_timeout: 600, counting_expression: 'http.response.code eq 401', requests_to_origin: false };
const { countingExpression: _counting, requestsToOrigin: _toOrigin, ...bareLimit } = ratelimit;
const { counting_expression: _wireCounting, requests_to_origin: _wireToOrigin, ...bareWireLimit } = wireLimit;
const { contentType: _contentType, ...plainResponse } = response;

/** The cases both kinds share: the rule's own fields, its place, and the block's response. */
function sharedCases(kind: PhaseKind, base: Record<string, unknown>): DriftCase[] {
  const row = (field: string, how: string, byHand: DriftCase['byHand'], reads: unknown, declared = base): DriftCase => ({ kind, field, how, declared, byHand, reads });
  const answering = { ...base, response };
  return [
    row('action', 'another action', () => ({ rule: { action: 'log' } }), 'log'),
    row('expression', 'another expression', () => ({ rule: { expression: '(http.request.uri.path eq "/changed")' } }), '(http.request.uri.path eq "/changed")'),
    row('description', 'another description', () => ({ rule: { description: 'changed by hand' } }), 'changed by hand'),
    row('enabled', 'disabled', () => ({ rule: { enabled: false } }), false),
    row('ref', 'renamed, the marker kept', ({ marker }) => ({ rule: { ref: withMarker('renamed', marker) } }), 'renamed'),
    row('ref', 'renamed, the marker dropped', () => ({ rule: { ref: 'renamed' } }), 'renamed'),
    row('position', 'moved after the other rule', ({ otherId }) => ({ rule: {}, position: { after: otherId } }), { after: 'other' }),
    row('position', 'moved from first to after the other rule', ({ otherId }) => ({ rule: {}, position: { after: otherId } }), { after: 'other' }, { ...base, position: { first: true } }),
    row('position', 'moved from last to first', () => ({ rule: {}, position: { index: 1 } }), { first: true }, { ...base, position: { last: true } }),
    row('position', 'moved from after the other rule to first', () => ({ rule: {}, position: { index: 1 } }), { first: true }, { ...base, position: { after: 'other' } }),
    row('response', 'a response added', () => ({ rule: { action_parameters: { response: wireResponse } } }), response),
    row('response', 'the response removed', () => ({ rule: { action_parameters: {} } }), undefined, answering),
    row('response.statusCode', 'another status', () => ({ rule: { action_parameters: { response: { ...wireResponse, status_code: 429 } } } }), 429, answering),
    row('response.content', 'another body', () => ({ rule: { action_parameters: { response: { ...wireResponse, content: '{"error":"later"}' } } } }), '{"error":"later"}', answering),
    row('response.contentType', 'another content type', () => ({ rule: { action_parameters: { response: { ...wireResponse, content_type: 'text/plain' } } } }), 'text/plain', answering),
    row('response.contentType', 'a content type added', () => ({ rule: { action_parameters: { response: wireResponse } } }), 'application/json', { ...base, response: plainResponse }),
  ];
}

const customCases = (): DriftCase[] => {
  const row = (field: string, how: string, parameters: Record<string, unknown>, reads: unknown): DriftCase => ({
    kind: 'CustomRule',
    field,
    how,
    declared: skipping,
    byHand: () => ({ rule: { action_parameters: parameters } }),
    reads,
  });
  const { ruleset: _ruleset, ...withoutRuleset } = wireSkip;
  return [
    ...sharedCases('CustomRule', custom),
    row('skip.ruleset', 'the rest of the phase no longer skipped', withoutRuleset, undefined),
    row('skip.phases', 'another phase skipped', { ...wireSkip, phases: ['http_ratelimit', 'http_request_sbfm'] }, ['http_ratelimit', 'http_request_sbfm']),
    row('skip.products', 'another product skipped', { ...wireSkip, products: ['waf', 'uaBlock'] }, ['waf', 'uaBlock']),
    row('skip.rules', 'another managed rule skipped', { ...wireSkip, rules: { [MANAGED_RULESET_ID]: [MANAGED_RULE, OTHER_MANAGED_RULE] } }, { [MANAGED_RULESET_ID]: [MANAGED_RULE, OTHER_MANAGED_RULE] }),
  ];
};

const rateLimitCases = (): DriftCase[] => {
  const row = (field: string, how: string, limit: Record<string, unknown>, reads: unknown, declared: Record<string, unknown> = limited): DriftCase => ({
    kind: 'RateLimitRule',
    field,
    how,
    declared,
    byHand: () => ({ rule: { ratelimit: limit as RulePatch['ratelimit'] } }),
    reads,
  });
  const bare = { ...limited, ratelimit: bareLimit };
  return [
    ...sharedCases('RateLimitRule', limited),
    row('ratelimit.characteristics', 'a characteristic removed', { ...wireLimit, characteristics: ['cf.colo.id'] }, ['cf.colo.id']),
    row('ratelimit.period', 'another period', { ...wireLimit, period: 120 }, 120),
    row('ratelimit.requestsPerPeriod', 'another count', { ...wireLimit, requests_per_period: 25 }, 25),
    row('ratelimit.mitigationTimeout', 'another timeout', { ...wireLimit, mitigation_timeout: 60 }, 60),
    row('ratelimit.countingExpression', 'another counting expression', { ...wireLimit, counting_expression: 'http.response.code eq 429' }, 'http.response.code eq 429'),
    row('ratelimit.countingExpression', 'the counting expression removed', { ...wireLimit, counting_expression: undefined }, undefined),
    row('ratelimit.countingExpression', 'a counting expression added', { ...bareWireLimit, counting_expression: 'http.response.code eq 401' }, 'http.response.code eq 401', bare),
    row('ratelimit.requestsToOrigin', 'turned on', { ...wireLimit, requests_to_origin: true }, true),
    row('ratelimit.requestsToOrigin', 'removed', { ...wireLimit, requests_to_origin: undefined }, undefined),
    row('ratelimit.requestsToOrigin', 'added', { ...bareWireLimit, requests_to_origin: true }, true, bare),
  ];
};

const CASES: DriftCase[] = [...customCases(), ...rateLimitCases()];

/** The schema inside optional and default wrappers. */
const unwrapped = (schema: z.ZodType): z.ZodType => (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault ? unwrapped(schema.unwrap() as z.ZodType) : schema);

/**
 * The declared inputs that reach the wire and change in place, by the kind's declaration: an object input by each
 * of its members (`ratelimit.period`), the rest by name; and the object inputs themselves.
 */
function declaredPaths(kind: PhaseKind): { leaves: string[]; objects: string[] } {
  const declaration = declarationOf(kind);
  const shape = (declaration.args as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  const leaves: string[] = [];
  const objects: string[] = [];
  for (const { input } of declaration.fields.filter((field) => field.change === 'update' && field.wire !== '')) {
    const schema = unwrapped(shape[input]!);
    if (schema instanceof z.ZodObject) {
      objects.push(input);
      leaves.push(...Object.keys(schema.shape).map((member) => `${input}.${member}`));
    } else leaves.push(input);
  }
  return { leaves, objects };
}

/** `record` with the value at dotted `path` set (or removed, for undefined). */
function withPath(record: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  const copy = { ...record };
  const next = rest.length === 0 ? value : withPath((record[head!] as Record<string, unknown> | undefined) ?? {}, rest.join('.'), value);
  if (next === undefined) delete copy[head!];
  else copy[head!] = next;
  return copy;
}

/** The rule as the service holds it, without what every write changes (its version, its time). */
const held = ({ version: _version, last_updated: _updated, ...rule }: RulesetRule) => rule;

const owner = (kind: PhaseKind) => ({ [NAME_KEY]: 'drifting', [OWNER_KEY]: ownerMarker({ ownerId: 'test-owner', project: 'p', stack: 's', parent: '', kind, name: 'drifting' }) });

/** Another owner's rule, made by hand in a fresh zone: the one the declared place names. */
function otherRule(kind: PhaseKind): Omit<RulesetRule, 'id'> {
  const rule = { action: 'log', expression: 'true', ref: 'other' };
  return kind === 'RateLimitRule' ? { ...rule, ratelimit: { characteristics: ['cf.colo.id'], period: 60, requests_per_period: 100, mitigation_timeout: 0 } } : rule;
}

test.each((['CustomRule', 'RateLimitRule'] as const).map((kind) => [kind]))('the table has a drift case for every declared wire field of %s, and for nothing else', (kind) => {
  const { leaves, objects } = declaredPaths(kind);
  const fields = [...new Set(CASES.filter((row) => row.kind === kind).map((row) => row.field))];
  expect(fields.filter((field) => !objects.includes(field)).sort()).toEqual([...leaves].sort());
  expect(fields.filter((field) => objects.includes(field))).toEqual(['response']);
});

test.each(CASES.map((row) => [row.kind, row.field, row.how, row] as const))('%s %s (%s by hand): read reports it, diff names only it, one PATCH puts it back', async (kind, field, _how, row) => {
  resetOwnership();
  const provider = implementation(kind);
  const zoneId = await fx.freshZone();
  const phase = PHASE[kind];
  const entrypoint = await fx.client.rulesets.updateEntrypoint({ zoneId, phase, ruleset: { name: 'default', rules: [otherRule(kind)] } });
  const otherId = entrypoint.rules[0]!.id!;
  const news = await checkedBy(provider, { zoneId, ...row.declared, ...owner(kind) });
  const made = await provider.create(news);
  // What a read reports: the declared rule, the ref without the marker, and the owner the state records (the outputs
  // record it once, as the marker written: kit/ownership.ts).
  const declared = { zoneId, ...row.declared, ...owner(kind) };
  const { [OWNER_KEY]: recorded, ...outputs } = declared;
  expect(made.outs).toMatchObject({ ...outputs, [MARKER_KEY]: recorded });
  const live = async () => (await fx.client.rulesets.getEntrypoint({ zoneId, phase })).rules;
  const written = await live();
  const mine = written.find((rule) => rule.id === made.id)!;
  const marker = owner(kind)[OWNER_KEY]!;
  expect(mine.ref).toBe(withMarker(String(row.declared.ref), marker));

  const change = row.byHand({ marker, otherId });
  await fx.client.rulesets.updateRule({ zoneId, rulesetId: entrypoint.id, ruleId: made.id, ...change });
  // The refresh and the up that find the change are a later run than the create's, as the engine's are: what the
  // create's run saw of the entry point (kept a moment for the owner marker's read, PhaseRuleCalls.live) is not theirs.
  await fx.newRun();
  const drifted = await provider.read(made.id, made.outs!);
  expect(drifted.inputs).toEqual(withPath(declared, field, row.reads));
  const top = field.split('.')[0];
  expect(await provider.diff(made.id, drifted.props!, news)).toMatchObject({ changes: true, changed: [top], replaces: [] });

  await fx.requestsSince();
  const updated = await provider.update(made.id, drifted.props!, news);
  expect(writesIn(await fx.requestsSince()).map((request) => `${request.method} ${request.path}`)).toEqual([
    `PATCH /client/v4/zones/${zoneId}/rulesets/${entrypoint.id}/rules/${made.id}`,
  ]);
  expect((await live()).map(held)).toEqual(written.map(held));

  const after = await provider.read(made.id, updated.outs!);
  expect(after.inputs).toEqual(declared);
  expect(await provider.diff(made.id, after.props!, news)).toMatchObject({ changes: false, changed: [] });
});
