import { AuthenticationError } from '../../src/client';
import { OTHER_ZONE, ZONE, clientOf, failure, useClientZones } from './harness';

const emulator = useClientZones();

describe('pageGuard', () => {
  it('reads the settings', async () => {
    expect(await clientOf(emulator()).pageGuard.get({ zoneId: ZONE })).toEqual({
      enabled: true,
      updated_at: expect.any(String),
      use_vendor_reporting_endpoint: true,
      use_connection_url_path: false,
    });
  });

  it('updates enabled and the reporting fields, and reads them back', async () => {
    const client = clientOf(emulator());
    const updated = await client.pageGuard.update({ zoneId: ZONE, enabled: false, use_connection_url_path: true });
    expect(updated.enabled).toBe(false);
    expect(Date.parse(updated.updated_at!)).toBeGreaterThan(Date.now() - 60_000);
    expect(await client.pageGuard.get({ zoneId: ZONE })).toMatchObject({ enabled: false, use_connection_url_path: true });
  });

  it('works with the email and key form', async () => {
    const { apiEmail, apiKey } = emulator().credentials;
    const settings = await clientOf(emulator(), { credentials: { apiEmail, apiKey } }).pageGuard.get({ zoneId: ZONE });
    expect(settings.enabled).toBe(true);
  });

  it('accepts a zone token on its zone and refuses it on another', async () => {
    const { zones } = await emulator().admin.info();
    const token = zones.find((zone) => zone.id === ZONE)!.token;
    const client = clientOf(emulator(), { credentials: { apiToken: token } });
    expect((await client.pageGuard.get({ zoneId: ZONE })).enabled).toBe(true);
    const error = await failure<AuthenticationError>(client.pageGuard.get({ zoneId: OTHER_ZONE }));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(403);
    expect(error.message).toBe(
      `GET /zones/${OTHER_ZONE}/page_guard failed: HTTP 403 Forbidden: 10000 Authentication error: the API token is not valid for zone ${OTHER_ZONE}`,
    );
  });
});
