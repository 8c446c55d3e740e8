import { PageGuardSettingsSchema } from '../../src/schemas';
import { failure, useEmulator, expectInvalid } from './helpers';

const h = useEmulator();
beforeEach(() => h.emulator.admin.reset());

describe('GET /zones/{zone_id}/page_guard', () => {
  test('answers the seeded settings in the envelope, with both reporting fields', async () => {
    const answer = await h.call('GET', `/zones/${h.zoneOf('enterprise')}/page_guard`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      success: true,
      errors: [],
      messages: [],
      result: { enabled: true, updated_at: '2026-09-01T08:00:00.000Z', use_vendor_reporting_endpoint: true, use_connection_url_path: true },
    });
    expect(PageGuardSettingsSchema.parse(answer.body.result).enabled).toBe(true);
  });

  test('the free demo zone starts with the feature off', async () => {
    const answer = await h.call('GET', `/zones/${h.zoneOf('free')}/page_guard`);
    expect(answer.body.result.enabled).toBe(false);
  });
});

describe('PUT /zones/{zone_id}/page_guard', () => {
  test('turns the feature on and answers enabled with a fresh updated_at with fractional seconds', async () => {
    const zone = h.zoneOf('free');
    const before = Date.now();
    const answer = await h.call('PUT', `/zones/${zone}/page_guard`, { body: { enabled: true } });
    expect(answer.status).toBe(200);
    const result = PageGuardSettingsSchema.parse(answer.body.result);
    expect(result.enabled).toBe(true);
    expect(result.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(result.updated_at!)).toBeGreaterThanOrEqual(before - 1000);
    const read = await h.call('GET', `/zones/${zone}/page_guard`);
    expect(read.body.result).toEqual({ ...answer.body.result });
  });

  test('writes use_vendor_reporting_endpoint and use_connection_url_path without touching enabled', async () => {
    const zone = h.zoneOf('pro');
    const answer = await h.call('PUT', `/zones/${zone}/page_guard`, {
      body: { use_vendor_reporting_endpoint: false, use_connection_url_path: true },
    });
    expect(answer.body.result).toMatchObject({ enabled: true, use_vendor_reporting_endpoint: false, use_connection_url_path: true });
    const read = await h.call('GET', `/zones/${zone}/page_guard`);
    expect(read.body.result).toMatchObject({ enabled: true, use_vendor_reporting_endpoint: false, use_connection_url_path: true });
  });

  test('an empty object is refused, naming the fields', async () => {
    const answer = await h.call('PUT', `/zones/${h.zoneOf('pro')}/page_guard`, { body: {} });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(
      failure([1004, 'at least one of enabled, use_vendor_reporting_endpoint, use_connection_url_path is required']),
    );
  });

  test('a wrong type is refused with the field named, and nothing changes', async () => {
    const zone = h.zoneOf('free');
    const answer = await h.call('PUT', `/zones/${zone}/page_guard`, { body: { enabled: 'yes' } });
    expectInvalid(answer, 'enabled: must be true or false');
    expect((await h.call('GET', `/zones/${zone}/page_guard`)).body.result.enabled).toBe(false);
  });

  test('a missing body is refused', async () => {
    const answer = await h.call('PUT', `/zones/${h.zoneOf('free')}/page_guard`);
    expectInvalid(answer, 'request body: required (a JSON document)');
  });
});
