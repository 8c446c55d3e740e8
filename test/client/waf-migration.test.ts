import { BadRequestError, ConflictError, ConnectionError, RetiredApiError, ServerError } from '../../src/client';
import { ENTERPRISE_ZONE, MISSING_ID, ZONE, clientOf, failure, useClientZones } from './harness';
import { NotFoundError } from '../../src/client';

const emulator = useClientZones();

describe('wafPackages', () => {
  it('lists the previous WAF packages and gets one', async () => {
    const client = clientOf(emulator());
    const packages = await client.wafPackages.list({ zoneId: ZONE }).toArray();
    expect(packages.map((p) => p.detection_mode).sort()).toEqual(['anomaly', 'traditional']);
    const owasp = packages.find((p) => p.detection_mode === 'anomaly')!;
    expect(await client.wafPackages.get({ zoneId: ZONE, packageId: owasp.id })).toEqual(owasp);
    expect(owasp).toMatchObject({ zone_id: ZONE, sensitivity: 'high', action_mode: 'simulate' });
  });
});

describe('wafOverrides', () => {
  it('lists, gets and deletes the URI-based overrides', async () => {
    const client = clientOf(emulator());
    const [override] = await client.wafOverrides.list({ zoneId: ZONE }).toArray();
    expect(override).toMatchObject({ urls: ['shop.example.com/admin/*'], rules: { '100015': 'disable' } });
    expect(await client.wafOverrides.get({ zoneId: ZONE, overrideId: override!.id })).toEqual(override);
    await client.wafOverrides.delete({ zoneId: ZONE, overrideId: override!.id });
    expect(await client.wafOverrides.list({ zoneId: ZONE }).toArray()).toEqual([]);
    const error = await failure<NotFoundError>(client.wafOverrides.delete({ zoneId: ZONE, overrideId: MISSING_ID }));
    expect(error.message).toBe(
      `DELETE /zones/${ZONE}/firewall/waf/overrides/${MISSING_ID} failed: HTTP 404 Not Found: 10013 WAF override ${MISSING_ID} not found`,
    );
  });
});

describe('wafMigration', () => {
  it('walks the whole migration: check, remove overrides, config, entry point, status', async () => {
    const client = clientOf(emulator());
    expect(await client.wafMigration.check({ zoneId: ZONE })).toEqual({ compatible: false, migration_state: 'start' });

    const config = await client.wafMigration.config({ zoneId: ZONE });
    expect(config.name).toBe('default');
    expect(config.rules.length).toBeGreaterThan(0);
    expect(config.rules.every((r) => r.action === 'execute' && r.expression === 'true')).toBe(true);

    const blocked = await failure<ConflictError>(client.wafMigration.updateEntrypoint({ zoneId: ZONE, mode: 'pending', ruleset: config }));
    expect(blocked).toBeInstanceOf(ConflictError);
    expect(blocked.message).toBe(
      `PUT /zones/${ZONE}/rulesets/phases/http_request_firewall_managed/entrypoint failed: HTTP 409 Conflict: 10031 zone ${ZONE} cannot migrate: it has 1 URI-based WAF override; delete it with DELETE /zones/${ZONE}/firewall/waf/overrides/{id}, then migrate`,
    );

    for await (const override of client.wafOverrides.list({ zoneId: ZONE })) {
      await client.wafOverrides.delete({ zoneId: ZONE, overrideId: override.id });
    }
    expect(await client.wafMigration.check({ zoneId: ZONE })).toEqual({ compatible: true, migration_state: 'start' });
    expect(await client.wafMigration.status({ zoneId: ZONE })).toMatchObject({
      migration_state: 'start',
      old_waf_status: 'enabled',
      new_waf_status: 'disabled',
    });

    const saved = await client.wafMigration.updateEntrypoint({ zoneId: ZONE, mode: 'pending', ruleset: config });
    expect(saved).toMatchObject({ id: expect.any(String), name: 'default', phase: 'http_request_firewall_managed' });
    expect(saved.rules.map((r) => r.action_parameters?.id)).toEqual(config.rules.map((r) => r.action_parameters?.id));
    expect(await client.wafMigration.status({ zoneId: ZONE })).toMatchObject({
      migration_state: 'complete',
      old_waf_status: 'disabled',
      new_waf_status: 'enabled',
    });

    // Every migration call carried phase_two=1.
    const log = await emulator().admin.requests();
    const migrationCalls = log.filter((r) => r.path.includes('/waf_migration/') || r.path.endsWith('/entrypoint'));
    expect(migrationCalls.length).toBeGreaterThanOrEqual(7);
    expect(migrationCalls.every((r) => r.query['phase_two'] === '1')).toBe(true);
    expect(migrationCalls.filter((r) => r.path.endsWith('/entrypoint')).map((r) => r.query['waf_migration'])).toEqual(['pending', 'pending']);

    // After the migration the previous WAF API is withdrawn (410).
    const gone = await failure<RetiredApiError>(client.wafPackages.list({ zoneId: ZONE }).toArray());
    expect(gone).toBeInstanceOf(RetiredApiError);
    expect(gone.status).toBe(410);
    expect(gone.message).toBe(
      `GET /zones/${ZONE}/firewall/waf/packages failed: HTTP 410 Gone: 10034 the previous WAF managed rules API is not available for zone ${ZONE}: the zone migrated to the new WAF managed rules; use the rulesets API`,
    );
  });

  it('never repeats the entry point PUT once it may have been received (a 5xx, a reset): it is retried like a POST', async () => {
    const client = clientOf(emulator());
    const config = await client.wafMigration.config({ zoneId: ENTERPRISE_ZONE });
    const put = { method: 'PUT', pathPrefix: `/zones/${ENTERPRISE_ZONE}/rulesets` };
    await emulator().admin.setFaults({ serverErrors: 1, serverErrorStatus: 503, match: put });
    const refused = await failure<ServerError>(client.wafMigration.updateEntrypoint({ zoneId: ENTERPRISE_ZONE, mode: 'validation', ruleset: config }));
    expect(refused).toBeInstanceOf(ServerError);
    expect(refused.attempts).toBe(1);
    await emulator().admin.setFaults({ resetConnections: 1, match: put });
    expect(await failure<ConnectionError>(client.wafMigration.updateEntrypoint({ zoneId: ENTERPRISE_ZONE, mode: 'validation', ruleset: config }))).toBeInstanceOf(ConnectionError);
    // A 429 is a refusal before the service acted: retried, and the PUT goes through.
    await emulator().admin.setFaults({ tooManyRequests: { count: 1, retryAfterSeconds: 0 }, match: put });
    await client.wafMigration.updateEntrypoint({ zoneId: ENTERPRISE_ZONE, mode: 'validation', ruleset: config });
    const puts = (await emulator().admin.requests()).filter((r) => r.method === 'PUT').map((r) => r.status);
    expect(puts).toEqual([503, 0, 429, 200]);
    // Other PUTs are still retried on a 5xx.
    await emulator().admin.setFaults({ serverErrors: 1, match: { method: 'PUT' } });
    expect(await client.pageGuard.update({ zoneId: ENTERPRISE_ZONE, enabled: true })).toMatchObject({ enabled: true });
  });

  it('refuses validation mode outside Enterprise', async () => {
    const client = clientOf(emulator());
    for await (const o of client.wafOverrides.list({ zoneId: ZONE })) await client.wafOverrides.delete({ zoneId: ZONE, overrideId: o.id });
    const config = await client.wafMigration.config({ zoneId: ZONE });
    const error = await failure<BadRequestError>(client.wafMigration.updateEntrypoint({ zoneId: ZONE, mode: 'validation', ruleset: config }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toBe(
      `PUT /zones/${ZONE}/rulesets/phases/http_request_firewall_managed/entrypoint failed: HTTP 400 Bad Request: 10033 waf_migration: validation mode is available to Enterprise zones only; zone ${ZONE} is on the business plan: use waf_migration=pending`,
    );
  });

  it('runs both WAFs in validation mode on Enterprise, then completes with pending', async () => {
    const client = clientOf(emulator());
    const config = await client.wafMigration.config({ zoneId: ENTERPRISE_ZONE });
    await client.wafMigration.updateEntrypoint({ zoneId: ENTERPRISE_ZONE, mode: 'validation', ruleset: config });
    expect(await client.wafMigration.status({ zoneId: ENTERPRISE_ZONE })).toMatchObject({
      migration_state: 'validation',
      old_waf_status: 'enabled',
      new_waf_status: 'enabled',
    });
    await client.wafMigration.updateEntrypoint({ zoneId: ENTERPRISE_ZONE, mode: 'pending', ruleset: config });
    expect(await client.wafMigration.status({ zoneId: ENTERPRISE_ZONE })).toMatchObject({ migration_state: 'complete', old_waf_status: 'disabled' });
  });
});
