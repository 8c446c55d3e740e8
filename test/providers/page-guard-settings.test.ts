import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NAME_KEY } from '../../src/providers/kit/closure';
import { pageGuardSettings } from '../../src/providers/page-guard-settings';
import { PREVIEW_AGAIN } from '../../src/seal/compare';
import { SEAL_FORMAT, sealText } from '../../src/seal/format';
import { SEAL_VARIABLE, resetSeal } from '../../src/seal/session';
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

describe('an update under a seal (docs/sealed-previews.md)', () => {
  const file = path.join(os.tmpdir(), `zoneguard-page-guard-seal-${process.pid}.json`);
  afterEach(() => {
    delete process.env[SEAL_VARIABLE];
    resetSeal();
  });
  afterAll(() => fs.rmSync(file, { force: true }));

  /** A seal whose preview read the settings of `zoneId` as `live`, and showed their update. */
  const sealOf = (zoneId: string, live: Record<string, unknown>) => {
    fs.writeFileSync(
      file,
      sealText({
        zoneguardSeal: SEAL_FORMAT,
        project: 'p',
        stack: 's',
        ownerId: null,
        madeAt: '2026-11-27T00:00:00.000Z',
        resources: [{ kind: 'PageGuardSettings', name: 'page', owner: null, op: 'update', zoneId, id: zoneId, state: null, live, landing: null }],
      }),
    );
    process.env[SEAL_VARIABLE] = file;
    resetSeal();
  };

  test('settings edited since the preview: the update fails naming the field, after one read and no write', async () => {
    const zoneId = await fx.freshZone();
    const { id, outs } = await pageGuardSettings.create(await checked({ zoneId, enabled: true, useConnectionUrlPath: true, [NAME_KEY]: 'page' }));
    sealOf(zoneId, { enabled: true, useConnectionUrlPath: true });
    await fx.client.pageGuard.update({ zoneId, enabled: false });
    await fx.requestsSince();

    const flipped = await checked({ zoneId, enabled: true, useConnectionUrlPath: false, [NAME_KEY]: 'page' });
    await expect(pageGuardSettings.update(id, outs as Record<string, unknown>, flipped)).rejects.toThrow(
      `PageGuardSettings 'page' of zone ${zoneId}: changed on the service since the sealed preview: enabled true → false; ${PREVIEW_AGAIN}`,
    );
    expect((await fx.requestsSince()).map((r) => r.method)).toEqual(['GET']);
    expect(await fx.client.pageGuard.get({ zoneId })).toMatchObject({ enabled: false, use_connection_url_path: true });
  });

  test('settings as the preview read them: the update writes after its one read; without a seal it only writes', async () => {
    const zoneId = await fx.freshZone();
    const { id, outs } = await pageGuardSettings.create(await checked({ zoneId, enabled: true, useConnectionUrlPath: true, [NAME_KEY]: 'page' }));
    const flipped = await checked({ zoneId, enabled: true, useConnectionUrlPath: false, [NAME_KEY]: 'page' });
    sealOf(zoneId, { enabled: true, useConnectionUrlPath: true });
    await fx.requestsSince();
    const updated = await pageGuardSettings.update(id, outs as Record<string, unknown>, flipped);
    expect((await fx.requestsSince()).map((r) => r.method)).toEqual(['GET', 'PUT']);

    delete process.env[SEAL_VARIABLE];
    resetSeal();
    await pageGuardSettings.update(id, updated.outs as Record<string, unknown>, await checked({ zoneId, enabled: true, useConnectionUrlPath: true, [NAME_KEY]: 'page' }));
    expect((await fx.requestsSince()).map((r) => r.method)).toEqual(['PUT']);
    expect(await fx.client.pageGuard.get({ zoneId })).toMatchObject({ enabled: true, use_connection_url_path: true });
  });
});
