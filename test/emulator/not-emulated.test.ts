import { NOT_EMULATED } from '../../src/emulator/routes/not-emulated';
import { failure, MISSING_ID, useEmulator } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

describe('public routes the emulator does not emulate', () => {
  test.each(NOT_EMULATED.map(([method, route]) => [method, route] as const))('%s %s answers 501 code 10040, not the 7000 of a wrong path', async (method, route) => {
    const zone = h.zoneOf('enterprise');
    const path = route.replace(':zone_id', zone).replace(/:[a-z_]+/g, MISSING_ID);
    const answer = await h.call(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
    expect(answer.status).toBe(501);
    expect(answer.body).toEqual(failure([10040, `${method} ${route} is part of the public API but not emulated by zoneguard's emulator (docs/emulator.md, "What it does not do")`]));
  });

  test('they still check credentials first', async () => {
    const answer = await h.call('DELETE', `/zones/${h.zoneOf('pro')}/firewall/rules`, { auth: 'none' });
    expect(answer.status).toBe(403);
  });

  test('a path the public API does not have is still 404 code 7000', async () => {
    const answer = await h.call('PATCH', `/zones/${h.zoneOf('pro')}/page_guard/scripts`, { body: {} });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failure([7000, 'No route for that URI']));
  });
});

describe('POST /zones/{zone_id}/firewall/waf/overrides', () => {
  test('creates a URI-based override, which then keeps the zone from migrating until it is deleted', async () => {
    const zone = h.zoneOf('pro');
    const created = await h.call('POST', `/zones/${zone}/firewall/waf/overrides`, {
      body: { urls: ['shop.acme-store.example/upload/*'], rules: { '100015': 'disable' }, description: 'uploads' },
    });
    expect(created.status).toBe(200);
    expect(created.body.result).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), urls: ['shop.acme-store.example/upload/*'], rules: { '100015': 'disable' }, description: 'uploads' });
    expect((await h.call('GET', `/zones/${zone}/firewall/waf/overrides/${created.body.result.id}`)).body.result).toEqual(created.body.result);
    expect((await h.call('GET', `/zones/${zone}/waf_migration/check?phase_two=1`)).body.result).toEqual({ compatible: false, migration_state: 'start' });
  });

  test('an override without URLs, or with an unknown field, is refused', async () => {
    const zone = h.zoneOf('pro');
    expect((await h.call('POST', `/zones/${zone}/firewall/waf/overrides`, { body: { urls: [] } })).body).toEqual(failure([1004, 'urls: must list at least one URL pattern']));
    expect((await h.call('POST', `/zones/${zone}/firewall/waf/overrides`, { body: { urls: ['a/*'], mode: 'x' } })).body).toEqual(failure([1004, 'unknown key "mode"']));
    expect((await h.emulator.admin.inventory(zone)).counts.wafOverrides).toBe(0);
  });
});
