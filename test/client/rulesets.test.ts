// The rulesets group against the emulator over loopback: entry points of any phase, one rule at a time with
// positions, dry runs that save nothing, versions, and the service's refusals as the error tree's.
import { BadRequestError, NotFoundError } from '../../src/client';
import { ErrorCode } from '../../src/schemas';
import { ENTERPRISE_ZONE, MISSING_ID, OTHER_ZONE, ZONE, clientOf, failure, useClientZones } from './harness';

const emulator = useClientZones();
const CUSTOM = 'http_request_firewall_custom';
const RATELIMIT = 'http_ratelimit';

describe('rulesets', () => {
  it('creates a custom rules entry point, then adds, moves, changes and deletes one rule at a time', async () => {
    const client = clientOf(emulator());
    const entry = await client.rulesets.updateEntrypoint({ zoneId: ZONE, phase: CUSTOM, ruleset: { name: 'custom', rules: [{ action: 'block', expression: 'ip.src eq 192.0.2.1', ref: 'a' }] } });
    const [a] = entry.rules;
    const added = await client.rulesets.createRule({ zoneId: ZONE, rulesetId: entry.id, rule: { action: 'log', expression: 'ip.src eq 192.0.2.2', ref: 'b' }, position: { before: a?.id ?? '' } });
    expect(added.rules.map((rule) => rule.ref)).toEqual(['b', 'a']);
    const b = added.rules[0]?.id ?? '';
    const moved = await client.rulesets.updateRule({ zoneId: ZONE, rulesetId: entry.id, ruleId: b, rule: { action: 'managed_challenge' }, position: { index: 2 } });
    expect(moved.rules.map((rule) => [rule.ref, rule.action])).toEqual([
      ['a', 'block'],
      ['b', 'managed_challenge'],
    ]);
    const deleted = await client.rulesets.deleteRule({ zoneId: ZONE, rulesetId: entry.id, ruleId: b });
    expect(deleted).toMatchObject({ version: '4', rules: [{ id: a?.id, ref: 'a' }] });
    expect(await client.rulesets.getEntrypoint({ zoneId: ZONE, phase: CUSTOM })).toEqual(deleted);
    expect(await client.rulesets.get({ zoneId: ZONE, rulesetId: entry.id })).toEqual(deleted);
  });

  it('a dry run answers null and saves nothing; a refused one throws what the write would', async () => {
    const client = clientOf(emulator());
    const entry = await client.rulesets.updateEntrypoint({ zoneId: OTHER_ZONE, phase: RATELIMIT, ruleset: { name: 'limits', rules: [] } });
    const rule = { action: 'block', expression: 'true', ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requests_per_period: 10, mitigation_timeout: 60 } };
    const dry: null = await client.rulesets.createRule({ zoneId: OTHER_ZONE, rulesetId: entry.id, rule, dryRun: true });
    expect(dry).toBeNull();
    expect((await client.rulesets.getEntrypoint({ zoneId: OTHER_ZONE, phase: RATELIMIT })).rules).toEqual([]);
    await client.rulesets.createRule({ zoneId: OTHER_ZONE, rulesetId: entry.id, rule });
    // The free plan holds one rate limiting rule: the dry run of a second is refused with the quota's message.
    const error = await failure<BadRequestError>(client.rulesets.createRule({ zoneId: OTHER_ZONE, rulesetId: entry.id, rule, dryRun: true }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toContain(`rules: the http_ratelimit phase of zone ${OTHER_ZONE} (free plan) allows 1 rules; this write would leave 2; nothing was saved`);
  });

  it('creates an entry point with the create-only write once; the second create is a BadRequestError with code 20217', async () => {
    const client = clientOf(emulator());
    const rules = [{ action: 'block', expression: 'ip.src eq 192.0.2.1', ref: 'first' }];
    const dry: null = await client.rulesets.createEntrypoint({ zoneId: ENTERPRISE_ZONE, phase: CUSTOM, ruleset: { name: 'default', rules }, dryRun: true });
    expect(dry).toBeNull();
    const made = await client.rulesets.createEntrypoint({ zoneId: ENTERPRISE_ZONE, phase: CUSTOM, ruleset: { name: 'default', rules } });
    expect(made).toMatchObject({ kind: 'zone', phase: CUSTOM, version: '1', rules: [{ ref: 'first' }] });
    const refused = await failure<BadRequestError>(client.rulesets.createEntrypoint({ zoneId: ENTERPRISE_ZONE, phase: CUSTOM, ruleset: { name: 'default', rules: [] } }));
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused.codes).toEqual([ErrorCode.entrypointExists]);
    expect(refused.message).toBe(
      `POST /zones/${ENTERPRISE_ZONE}/rulesets failed: HTTP 400 Bad Request: 20217 'zone' is not a valid value for kind because exceeded maximum number of zone rulesets for phase ${CUSTOM}`,
    );
    expect(await client.rulesets.getEntrypoint({ zoneId: ENTERPRISE_ZONE, phase: CUSTOM })).toEqual(made);
  });

  it('lists the versions of a ruleset and reads one', async () => {
    const client = clientOf(emulator());
    const entry = await client.rulesets.updateEntrypoint({ zoneId: ZONE, phase: CUSTOM, ruleset: { name: 'custom', rules: [{ action: 'block', expression: 'true' }] } });
    await client.rulesets.updateEntrypoint({ zoneId: ZONE, phase: CUSTOM, ruleset: { name: 'custom', rules: [] } });
    const versions = await client.rulesets.listVersions({ zoneId: ZONE, rulesetId: entry.id });
    expect(versions.map((version) => version.version)).toEqual(['1', '2']);
    expect((await client.rulesets.getVersion({ zoneId: ZONE, rulesetId: entry.id, version: '1' })).rules).toHaveLength(1);
    const missing = await failure<NotFoundError>(client.rulesets.deleteRule({ zoneId: ZONE, rulesetId: entry.id, ruleId: MISSING_ID }));
    expect(missing.message).toBe(
      `DELETE /zones/${ZONE}/rulesets/${entry.id}/rules/${MISSING_ID} failed: HTTP 404 Not Found: 10013 ruleset ${entry.id} has no rule ${MISSING_ID}`,
    );
  });
});
