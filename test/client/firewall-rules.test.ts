import { BadRequestError, ConflictError, NotFoundError } from '../../src/client';
import { ZONE, clientOf, failure, useClientZones } from './harness';

const emulator = useClientZones();

describe('firewallRules', () => {
  it('creates rules with their filters in one call (the array body), and gets one', async () => {
    const client = clientOf(emulator());
    const created = await client.firewallRules.create({
      zoneId: ZONE,
      rules: [
        { action: 'block', description: 'bad bot', filter: { expression: 'http.user_agent contains "BadBot"' } },
        { action: 'challenge', filter: { expression: 'ip.src in {192.0.2.0/24}' }, priority: 10 },
      ],
    });
    expect(created.map((r) => [r.action, r.filter.expression])).toEqual([
      ['block', 'http.user_agent contains "BadBot"'],
      ['challenge', 'ip.src in {192.0.2.0/24}'],
    ]);
    const one = await client.firewallRules.get({ zoneId: ZONE, ruleId: created[1]!.id });
    expect(one).toEqual({ ...created[1], priority: 10 });
  });

  it('walks every page of the list (3 pages of 5, no result_info)', async () => {
    const client = clientOf(emulator());
    const rules = Array.from({ length: 12 }, (_, i) => ({ action: 'block' as const, filter: { expression: `ip.src eq 192.0.2.${i + 1}` } }));
    await client.firewallRules.create({ zoneId: ZONE, rules });
    const all = await client.firewallRules.list({ zoneId: ZONE, perPage: 5 }).toArray();
    expect(all.map((r) => r.filter.expression)).toEqual(rules.map((r) => r.filter.expression));
    const log = await emulator().admin.requests();
    expect(log.filter((r) => r.method === 'GET').map((r) => r.query['page'])).toEqual(['1', '2', '3']);
  });

  it('updates a rule, its filter referenced by id', async () => {
    const client = clientOf(emulator());
    const [rule] = await client.firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'http.host eq "a.example"' } }] });
    const updated = await client.firewallRules.update({ zoneId: ZONE, ruleId: rule!.id, action: 'log', paused: true, filter: { id: rule!.filter.id } });
    expect(updated).toMatchObject({ id: rule!.id, action: 'log', paused: true, filter: { id: rule!.filter.id } });
  });

  it('deletes a rule with its unused filter, and says so', async () => {
    const client = clientOf(emulator());
    const [rule] = await client.firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'http.host eq "b.example"' } }] });
    const result = await client.firewallRules.delete({ zoneId: ZONE, ruleId: rule!.id, deleteFilterIfUnused: true });
    expect(result).toEqual({ id: rule!.id, filter: { id: rule!.filter.id, deleted: true } });
    await expect(client.filters.get({ zoneId: ZONE, filterId: rule!.filter.id })).rejects.toBeInstanceOf(NotFoundError);
    // The same expression can be created again: no filter was left behind.
    await expect(client.firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'http.host eq "b.example"' } }] })).resolves.toHaveLength(1);
  });

  it('keeps the filter when asked to; recreating the rule then fails with 10102', async () => {
    const client = clientOf(emulator());
    const [rule] = await client.firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'http.host eq "c.example"' } }] });
    const result = await client.firewallRules.delete({ zoneId: ZONE, ruleId: rule!.id });
    expect(result.filter).toEqual({ id: rule!.filter.id, deleted: false });
    const error = await failure<BadRequestError>(
      client.firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'http.host eq "c.example"' } }] }),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toBe(
      `POST /zones/${ZONE}/firewall/rules failed: HTTP 400 Bad Request: 10102 0.filter.expression: config duplicates an already existing config (filter ${rule!.filter.id} has this expression)`,
    );
  });

  it('refuses a rule over the quota: 10030, and the filter is left for later', async () => {
    const client = clientOf(emulator());
    const rules = Array.from({ length: 30 }, (_, i) => ({ action: 'block' as const, filter: { expression: `ip.src eq 198.51.100.${i + 1}` } }));
    await client.firewallRules.create({ zoneId: ZONE, rules });
    const error = await failure<BadRequestError>(
      client.firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'ip.src eq 203.0.113.9' } }] }),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.codes).toEqual([10030]);
    const [leftover] = await client.filters.list({ zoneId: ZONE, expression: 'ip.src eq 203.0.113.9' }).toArray();
    expect(error.message).toBe(
      `POST /zones/${ZONE}/firewall/rules failed: HTTP 400 Bad Request: 10030 firewall rule quota exceeded: zone ${ZONE} (business plan) allows 30 rules and has 30; no rule was created, but filter ${leftover!.id} was created: reference it by id once the quota allows`,
    );
  });
});

describe('filters', () => {
  it('the recommended two-call flow: create a filter, then rules that reference it', async () => {
    const client = clientOf(emulator());
    const [filter] = await client.filters.create({ zoneId: ZONE, filters: [{ expression: 'http.request.uri.path eq "/login"', description: 'login' }] });
    expect(filter).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), expression: 'http.request.uri.path eq "/login"', paused: false, description: 'login' });
    const rules = await client.firewallRules.create({
      zoneId: ZONE,
      rules: [
        { action: 'managed_challenge', filter: { id: filter!.id } },
        { action: 'log', filter: { id: filter!.id } },
      ],
    });
    expect(rules.map((r) => r.filter.id)).toEqual([filter!.id, filter!.id]);

    // In use by two rules: deleting one rule with deleteFilterIfUnused keeps the filter.
    const first = await client.firewallRules.delete({ zoneId: ZONE, ruleId: rules[0]!.id, deleteFilterIfUnused: true });
    expect(first.filter?.deleted).toBe(false);
    const inUse = await failure<ConflictError>(client.filters.delete({ zoneId: ZONE, filterId: filter!.id }));
    expect(inUse).toBeInstanceOf(ConflictError);
    expect(inUse.message).toBe(
      `DELETE /zones/${ZONE}/filters/${filter!.id} failed: HTTP 409 Conflict: 10027 filter ${filter!.id} is referenced by firewall rule ${rules[1]!.id}; delete or repoint the rule first`,
    );
    const second = await client.firewallRules.delete({ zoneId: ZONE, ruleId: rules[1]!.id, deleteFilterIfUnused: true });
    expect(second.filter?.deleted).toBe(true);
  });

  it('lists, gets, updates and deletes a free filter', async () => {
    const client = clientOf(emulator());
    const created = await client.filters.create({
      zoneId: ZONE,
      filters: Array.from({ length: 7 }, (_, i) => ({ expression: `http.host eq "f${i}.example"` })),
    });
    expect(await client.filters.list({ zoneId: ZONE, perPage: 5 }).toArray()).toEqual(created);
    const updated = await client.filters.update({ zoneId: ZONE, filterId: created[0]!.id, expression: 'http.host eq "g.example"', paused: true });
    expect(updated).toEqual({ id: created[0]!.id, expression: 'http.host eq "g.example"', paused: true });
    expect(await client.filters.get({ zoneId: ZONE, filterId: created[0]!.id })).toEqual(updated);
    await client.filters.delete({ zoneId: ZONE, filterId: created[0]!.id });
    await expect(client.filters.get({ zoneId: ZONE, filterId: created[0]!.id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses to change a filter created together with its rule', async () => {
    const client = clientOf(emulator());
    const [rule] = await client.firewallRules.create({ zoneId: ZONE, rules: [{ action: 'block', filter: { expression: 'http.host eq "d.example"' } }] });
    const error = await failure<ConflictError>(client.filters.update({ zoneId: ZONE, filterId: rule!.filter.id, expression: 'http.host eq "e.example"' }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toBe(
      `PUT /zones/${ZONE}/filters/${rule!.filter.id} failed: HTTP 409 Conflict: 10027 filter ${rule!.filter.id} was created together with firewall rule ${rule!.id} in one call and cannot be changed or deleted on its own; change or delete the rule`,
    );
  });
});
