import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSeedFile } from '../../src/cli';
import { startEmulator, type StartedEmulator } from '../../src/emulator';
import { renameLegacyFields } from '../../src/emulator/state';
import { send } from './helpers';
import { zoneOfPlan } from '../support/emulator';

let dir: string;
let running: StartedEmulator | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'zoneguard-state-'));
});
afterEach(async () => {
  await running?.close();
  running = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const call = (emulator: StartedEmulator, method: string, path: string, body?: unknown) =>
  send(emulator.baseUrl, emulator.credentials.apiToken, method, path, body === undefined ? {} : { body });

describe('renameLegacyFields: the old field names of state and seed files', () => {
  test.each([
    ['old names become the new ones', { version: 2, settings: { a: 1 }, policies: { b: 2 } }, { version: 2, pageGuard: { a: 1 }, cspPolicies: { b: 2 } }],
    ['new names stay', { pageGuard: { a: 1 }, cspPolicies: {} }, { pageGuard: { a: 1 }, cspPolicies: {} }],
    ['both names: both kept, so the schema refuses the old one', { settings: 1, pageGuard: 2 }, { settings: 1, pageGuard: 2 }],
    ['not an object: unchanged', ['settings'], ['settings']],
    ['null: unchanged', null, null],
  ])('%s', (_, input, expected) => {
    expect(renameLegacyFields(input)).toEqual(expected);
  });
});

describe('--state FILE', () => {
  test('a state file with the old field names (settings, policies) loads, and is written back with the new ones', async () => {
    const statePath = join(dir, 'state.json');
    running = await startEmulator({ statePath });
    const zone = zoneOfPlan(running, 'enterprise');
    const policy = (await call(running, 'POST', `/zones/${zone}/page_guard/policies`, { description: 'old file', action: 'log', expression: 'true', enabled: true, value: "script-src 'self'" })).body.result;
    await call(running, 'PUT', `/zones/${zone}/page_guard`, { enabled: false });
    await running.close();
    running = undefined;
    const { pageGuard, cspPolicies, ...rest } = JSON.parse(readFileSync(statePath, 'utf8'));
    writeFileSync(statePath, JSON.stringify({ ...rest, settings: pageGuard, policies: cspPolicies }));

    running = await startEmulator({ statePath, seed: 'empty' });
    expect((await call(running, 'GET', `/zones/${zone}/page_guard/policies/${policy.id}`)).body.result).toEqual(policy);
    expect((await call(running, 'GET', `/zones/${zone}/page_guard`)).body.result.enabled).toBe(false);
    await call(running, 'PUT', `/zones/${zone}/page_guard`, { enabled: true });
    const written = JSON.parse(readFileSync(statePath, 'utf8'));
    expect(Object.keys(written)).not.toContain('settings');
    expect(Object.keys(written)).not.toContain('policies');
    expect(written.pageGuard[zone].enabled).toBe(true);
    expect(written.cspPolicies[zone]).toContainEqual({ ...policy, enabled: true });
  });

  test('a state file holding both the old and the new name of a field is refused, naming the old one', async () => {
    const statePath = join(dir, 'state.json');
    running = await startEmulator({ statePath });
    await running.close();
    running = undefined;
    const file = JSON.parse(readFileSync(statePath, 'utf8'));
    writeFileSync(statePath, JSON.stringify({ ...file, settings: file.pageGuard }));
    await expect(startEmulator({ statePath })).rejects.toThrow(`state file ${statePath}: unknown key "settings"`);
  });

  test('a seed file whose zone names its CSP policies `policies` (the old name) still loads them', async () => {
    const seedPath = join(dir, 'seed.json');
    const policy = { description: 'old seed', action: 'log', expression: 'true', enabled: true, value: "script-src 'self'" };
    writeFileSync(seedPath, JSON.stringify({ zones: [{ name: 'old.example', plan: 'pro', policies: [policy] }] }));
    const seed = readSeedFile(seedPath);
    expect(seed.zones[0]).toMatchObject({ cspPolicies: [policy] });
    running = await startEmulator({ seed });
    const listed = (await call(running, 'GET', `/zones/${running.zones[0]!.id}/page_guard/policies`)).body.result;
    expect(listed).toEqual([expect.objectContaining({ description: 'old seed', enabled: 'true' })]);
  });

  test('the state is written at start and after every change, and loaded by the next start', async () => {
    const statePath = join(dir, 'nested', 'state.json');
    running = await startEmulator({ statePath });
    const first = running;
    expect(JSON.parse(readFileSync(statePath, 'utf8')).zones).toHaveLength(4);

    const enterprise = zoneOfPlan(first, 'enterprise');
    const pro = zoneOfPlan(first, 'pro');
    const policy = (await call(first, 'POST', `/zones/${enterprise}/page_guard/policies`, { description: 'kept', action: 'log', expression: 'true', enabled: true, value: "script-src 'self'" })).body.result;
    await call(first, 'PUT', `/zones/${pro}/page_guard`, { enabled: false });
    const rule = (await call(first, 'POST', `/zones/${pro}/firewall/rules`, [{ filter: { expression: 'ip.src eq 192.0.2.77' }, action: 'block' }])).body.result[0];
    const config = (await call(first, 'GET', `/zones/${enterprise}/waf_migration/config?phase_two=1`)).body.result;
    await call(first, 'PUT', `/zones/${enterprise}/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=pending&phase_two=1`, config);
    // Written before the answer left: the file already holds the last change.
    expect(JSON.parse(readFileSync(statePath, 'utf8')).waf[enterprise].migrationState).toBe('pending');
    await first.close();

    running = await startEmulator({ statePath, seed: 'empty' });
    const second = running;
    expect(second.credentials).toEqual(first.credentials);
    expect(second.zones).toEqual(first.zones);
    expect((await call(second, 'GET', `/zones/${enterprise}/page_guard/policies/${policy.id}`)).body.result).toEqual(policy);
    expect((await call(second, 'GET', `/zones/${pro}/page_guard`)).body.result.enabled).toBe(false);
    expect((await call(second, 'GET', `/zones/${pro}/firewall/rules/${rule.id}`)).body.result).toEqual(rule);
    // The single-call filter is still locked after the restart.
    expect((await call(second, 'DELETE', `/zones/${pro}/filters/${rule.filter.id}`)).status).toBe(409);
    expect((await call(second, 'GET', `/zones/${enterprise}/waf_migration/status`)).body.result.migration_state).toBe('complete');
  });

  test('writes are atomic: no temporary file is left beside the state file', async () => {
    const statePath = join(dir, 'state.json');
    running = await startEmulator({ statePath });
    const zone = zoneOfPlan(running, 'pro');
    await Promise.all(Array.from({ length: 20 }, (_, i) => call(running!, 'POST', `/zones/${zone}/filters`, [{ expression: `ip.src eq 10.3.0.${i}` }])));
    expect(readdirSync(dir)).toEqual(['state.json']);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).filters[zone]).toHaveLength(22);
  });

  test('reads do not rewrite the file', async () => {
    const statePath = join(dir, 'state.json');
    running = await startEmulator({ statePath });
    writeFileSync(statePath, readFileSync(statePath, 'utf8') + ' ');
    await call(running, 'GET', `/zones/${zoneOfPlan(running, 'pro')}/page_guard`);
    expect(readFileSync(statePath, 'utf8').endsWith(' ')).toBe(true);
  });

  test('admin reset goes back to the seed and writes it', async () => {
    const statePath = join(dir, 'state.json');
    running = await startEmulator({ statePath });
    const zone = zoneOfPlan(running, 'pro');
    await call(running, 'PUT', `/zones/${zone}/page_guard`, { enabled: false });
    await running.admin.reset();
    expect(JSON.parse(readFileSync(statePath, 'utf8')).pageGuard[zone].enabled).toBe(true);
  });

  test('the state file, which holds every credential, is readable by its owner only, also when it existed before', async () => {
    const statePath = join(dir, 'state.json');
    running = await startEmulator({ statePath });
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    chmodSync(statePath, 0o644);
    await running.admin.addToken();
    expect(statSync(statePath).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  test('a state file of another version, not JSON, or wrongly shaped stops the start naming the file and each field', async () => {
    const statePath = join(dir, 'state.json');
    writeFileSync(statePath, JSON.stringify({ version: 3 }));
    await expect(startEmulator({ statePath })).rejects.toThrow(
      `state file ${statePath}: version: must be 2 (this emulator's state file format); start without --state, or with a new file; credentials: is required`,
    );
    writeFileSync(statePath, '{"version": 2,');
    await expect(startEmulator({ statePath })).rejects.toThrow(`state file ${statePath}: Expected double-quoted property name in JSON at position 14`);

    running = await startEmulator({ statePath: join(dir, 'good.json') });
    await running.close();
    running = undefined;
    const good = JSON.parse(readFileSync(join(dir, 'good.json'), 'utf8'));
    good.zones[0].plan = 'platinum';
    good.zones[1].tokens = [];
    good.credentials.extra = true;
    writeFileSync(statePath, JSON.stringify(good));
    await expect(startEmulator({ statePath })).rejects.toThrow(
      `state file ${statePath}: credentials: unknown key "extra"; zones.0.plan: must be one of "free", "pro", "business", "enterprise"; zones.1.tokens: must hold at least one token`,
    );
  });

  test('a state file that cannot be written: the change fails in the envelope, is not applied, and the emulator keeps serving', async () => {
    const statePath = join(dir, 'sub', 'state.json');
    running = await startEmulator({ statePath });
    const zone = zoneOfPlan(running, 'pro');
    // Root ignores permissions, so the directory becomes a file: the write fails for everyone.
    rmSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'sub'), 'not a directory');
    const refused = await call(running, 'PUT', `/zones/${zone}/page_guard`, { enabled: false });
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({
      success: false,
      errors: [{ code: 10001, message: expect.stringMatching(new RegExp(`^the change was not applied: the state file ${statePath} could not be written \\(EEXIST: .*\\); fix the path or its permissions and retry$`)) }],
      messages: [],
      result: null,
    });
    expect((await call(running, 'GET', `/zones/${zone}/page_guard`)).body.result.enabled).toBe(true);
    // Once the path is writable again, the same change goes through and is written.
    rmSync(join(dir, 'sub'));
    expect((await call(running, 'PUT', `/zones/${zone}/page_guard`, { enabled: false })).status).toBe(200);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).pageGuard[zone].enabled).toBe(false);
  });
});
