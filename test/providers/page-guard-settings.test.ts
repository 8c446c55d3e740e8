import { pageGuardSettings } from '../../src/providers/page-guard-settings';
import { checkedBy, useProviderFixture } from './support';

const fx = useProviderFixture();

const checked = (news: Record<string, unknown>) => checkedBy(pageGuardSettings, news);

describe('check', () => {
  test.each([
    ['zoneId', { zoneId: 'nope', enabled: true }, 'PageGuardSettings.zoneId: must be a zone id: 32 lowercase hexadecimal characters'],
    ['enabled', { zoneId: 'a'.repeat(32), enabled: 'on' }, 'PageGuardSettings.enabled: must be true or false'],
    ['useConnectionUrlPath', { zoneId: 'a'.repeat(32), enabled: true, useConnectionUrlPath: 1 }, 'PageGuardSettings.useConnectionUrlPath: must be true or false'],
  ])('a bad %s fails with a reason and sends nothing', async (property, news, reason) => {
    await fx.requestsSince();
    expect((await pageGuardSettings.check({}, news)).failures).toEqual([{ property, reason }]);
    expect(await fx.requestsSince()).toEqual([]);
  });

  test('an unknown input name is refused', async () => {
    const result = await pageGuardSettings.check({}, { zoneId: 'a'.repeat(32), enabled: true, enable: true });
    expect(result.failures).toEqual([
      { property: 'enable', reason: 'PageGuardSettings: unknown input "enable"; remove it or check its spelling' },
    ]);
  });
});

test('create takes over and records, update changes, read finds drift, delete restores', async () => {
  const zoneId = fx.zone('business');
  const original = await fx.client.pageGuard.get({ zoneId });
  const inputs = await checked({ zoneId, enabled: !original.enabled, useConnectionUrlPath: true });

  const { id, outs } = await pageGuardSettings.create(inputs);
  expect(id).toBe(zoneId);
  expect(outs).toMatchObject({ zoneId, enabled: !original.enabled, useConnectionUrlPath: true });
  expect((outs as { previous: unknown }).previous).toEqual({
    enabled: original.enabled,
    useVendorReportingEndpoint: original.use_vendor_reporting_endpoint,
    useConnectionUrlPath: original.use_connection_url_path,
  });
  expect(await fx.client.pageGuard.get({ zoneId })).toMatchObject({ enabled: !original.enabled, use_connection_url_path: true });

  // Nothing changed: no diff, and an undeclared flag is not managed.
  expect(await pageGuardSettings.diff(id, outs as Record<string, unknown>, inputs)).toMatchObject({ changes: false });
  expect(outs).not.toHaveProperty('useVendorReportingEndpoint');

  const flipped = await checked({ zoneId, enabled: original.enabled, useConnectionUrlPath: true });
  expect(await pageGuardSettings.diff(id, outs as Record<string, unknown>, flipped)).toMatchObject({ changed: ['enabled'], replaces: [] });
  const updated = await pageGuardSettings.update(id, outs as Record<string, unknown>, flipped);
  expect(updated.outs).toMatchObject({ enabled: original.enabled });
  expect((await fx.client.pageGuard.get({ zoneId })).enabled).toBe(original.enabled);

  await fx.client.pageGuard.update({ zoneId, use_connection_url_path: false });
  const read = await pageGuardSettings.read(id, updated.outs as Record<string, unknown>);
  expect(read.inputs).toEqual({ zoneId, enabled: original.enabled, useConnectionUrlPath: false });
  expect(await pageGuardSettings.diff(id, read.props as Record<string, unknown>, flipped)).toMatchObject({ changed: ['useConnectionUrlPath'] });

  const otherZone = await checked({ zoneId: fx.zone('pro'), enabled: true });
  expect(await pageGuardSettings.diff(id, outs as Record<string, unknown>, otherZone)).toMatchObject({ replaces: ['zoneId'] });

  await pageGuardSettings.delete(id, read.props as Record<string, unknown>);
  expect(await fx.client.pageGuard.get({ zoneId })).toMatchObject({
    enabled: original.enabled,
    use_connection_url_path: original.use_connection_url_path,
  });
});

test('taking over settings already as declared only reads them', async () => {
  const zoneId = fx.zone('pro');
  const current = await fx.client.pageGuard.get({ zoneId });
  await fx.requestsSince();
  const { outs } = await pageGuardSettings.create(await checked({ zoneId, enabled: current.enabled }));
  expect(outs).toMatchObject({ zoneId, enabled: current.enabled, previous: { enabled: current.enabled } });
  expect((await fx.requestsSince()).map((r) => r.method)).toEqual(['GET']);
});
