import { useEmulator } from './helpers';

const h = useEmulator({ seed: 'empty' });
const ZONE = 'ee00000000000000000000000000ee01';
beforeEach(async () => {
  await h.emulator.admin.reset();
  await h.emulator.admin.seedZone({ id: ZONE, name: 'busy.example', plan: 'enterprise' });
});

describe('concurrent requests', () => {
  test('50 concurrent policy creates give 50 distinct policies, none lost', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.call('POST', `/zones/${ZONE}/page_guard/policies`, {
          body: { description: `policy ${i}`, action: 'log', expression: 'true', enabled: 'true', value: "script-src 'self'" },
        }),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const ids = new Set(answers.map((a) => a.body.result.id));
    expect(ids.size).toBe(50);
    const listed = (await h.call('GET', `/zones/${ZONE}/page_guard/policies`)).body.result;
    expect(new Set(listed.map((p: { id: string }) => p.id))).toEqual(ids);
    expect(new Set(listed.map((p: { description: string }) => p.description)).size).toBe(50);
  });

  test('50 concurrent single-call rule creates give 50 rules and 50 filters', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.call('POST', `/zones/${ZONE}/firewall/rules`, { body: [{ filter: { expression: `ip.src eq 10.4.0.${i}` }, action: 'block' }] }),
      ),
    );
    expect(new Set(answers.map((a) => a.body.result[0].id)).size).toBe(50);
    expect((await h.emulator.admin.inventory(ZONE)).counts).toMatchObject({ firewallRules: 50, filters: 50 });
  });

  test('10 concurrent creates of the same expression: exactly one filter, nine 10102', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => h.call('POST', `/zones/${ZONE}/filters`, { body: [{ expression: 'http.host eq "race.example"' }] })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.body.errors[0]?.code === 10102)).toHaveLength(9);
  });

  test('the rule quota holds under concurrency', async () => {
    await h.emulator.admin.seedZone({ id: ZONE, name: 'busy.example', plan: 'free', ruleQuota: 10 });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        h.call('POST', `/zones/${ZONE}/firewall/rules`, { body: [{ filter: { expression: `ip.src eq 10.5.0.${i}` }, action: 'block' }] }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.body.errors[0]?.code === 10030)).toHaveLength(20);
    expect((await h.emulator.admin.inventory(ZONE)).counts).toMatchObject({ firewallRules: 10, filters: 30 });
  });

  test('concurrent partial updates of one policy keep every field written', async () => {
    const policy = (
      await h.call('POST', `/zones/${ZONE}/page_guard/policies`, { body: { description: 'd', action: 'log', expression: 'true', enabled: true, value: 'v' } })
    ).body.result;
    await Promise.all([
      h.call('PUT', `/zones/${ZONE}/page_guard/policies/${policy.id}`, { body: { description: 'new description' } }),
      h.call('PUT', `/zones/${ZONE}/page_guard/policies/${policy.id}`, { body: { action: 'allow' } }),
      h.call('PUT', `/zones/${ZONE}/page_guard/policies/${policy.id}`, { body: { enabled: false } }),
      h.call('PUT', `/zones/${ZONE}/page_guard/policies/${policy.id}`, { body: { value: "script-src 'none'" } }),
    ]);
    expect((await h.call('GET', `/zones/${ZONE}/page_guard/policies/${policy.id}`)).body.result).toEqual({
      id: policy.id,
      description: 'new description',
      action: 'allow',
      expression: 'true',
      enabled: 'false',
      value: "script-src 'none'",
    });
  });
});
