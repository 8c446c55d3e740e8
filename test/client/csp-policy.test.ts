import { BadRequestError, NotFoundError } from '../../src/client';
import { MISSING_ID, ZONE, clientOf, failure, useClientZones } from './harness';

const emulator = useClientZones();

const checkout = {
  description: 'Checkout scripts',
  action: 'allow' as const,
  expression: 'http.request.uri.path contains "/checkout"',
  value: "script-src 'self' https://js.stripe.com",
};

describe('cspPolicies', () => {
  it('creates with enabled given as a boolean, and reads it back as a boolean', async () => {
    const client = clientOf(emulator());
    const created = await client.cspPolicies.create({ zoneId: ZONE, ...checkout, enabled: true });
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), ...checkout, enabled: true });
    expect(await client.cspPolicies.get({ zoneId: ZONE, policyId: created.id })).toEqual(created);
  });

  it('lists every policy', async () => {
    const client = clientOf(emulator());
    const a = await client.cspPolicies.create({ zoneId: ZONE, ...checkout, enabled: true });
    const b = await client.cspPolicies.create({ zoneId: ZONE, ...checkout, description: 'Monitor', action: 'log', enabled: 'false' });
    const all = await client.cspPolicies.list({ zoneId: ZONE }).toArray();
    expect(all.map((p) => [p.id, p.enabled])).toEqual([
      [a.id, true],
      [b.id, false],
    ]);
  });

  it('updates part of a policy; the result is the whole policy', async () => {
    const client = clientOf(emulator());
    const created = await client.cspPolicies.create({ zoneId: ZONE, ...checkout, enabled: true });
    const updated = await client.cspPolicies.update({ zoneId: ZONE, policyId: created.id, enabled: false, action: 'log' });
    expect(updated).toEqual({ ...created, enabled: false, action: 'log' });
  });

  it('deletes (204, no body), after which get is NotFoundError', async () => {
    const client = clientOf(emulator());
    const created = await client.cspPolicies.create({ zoneId: ZONE, ...checkout, enabled: true });
    await expect(client.cspPolicies.delete({ zoneId: ZONE, policyId: created.id })).resolves.toBeUndefined();
    const log = await emulator().admin.requests();
    expect(log.at(-1)).toMatchObject({ method: 'DELETE', status: 204 });
    const error = await failure<NotFoundError>(client.cspPolicies.get({ zoneId: ZONE, policyId: created.id }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toBe(
      `GET /zones/${ZONE}/page_guard/policies/${created.id} failed: HTTP 404 Not Found: 10013 policy ${created.id} not found`,
    );
  });

  it('answers NotFoundError when deleting a policy that is not there', async () => {
    const error = await failure<NotFoundError>(clientOf(emulator()).cspPolicies.delete({ zoneId: ZONE, policyId: MISSING_ID }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.codes).toEqual([10013]);
  });

  it('answers BadRequestError with every problem of the body', async () => {
    const error = await failure<BadRequestError>(
      clientOf(emulator()).cspPolicies.create({ zoneId: ZONE, ...checkout, action: 'deny' as never, value: '', enabled: true }),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.status).toBe(400);
    expect(error.codes).toEqual([1004, 1004]);
    expect(error.message).toBe(
      `POST /zones/${ZONE}/page_guard/policies failed: HTTP 400 Bad Request: 1004 action: must be one of "log", "allow", "add_reporting_directives"; 1004 value: must not be empty`,
    );
  });
});
