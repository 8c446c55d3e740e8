import { ZoneGuardError } from '../../src/client/errors';
import { ProviderError, type Implementation } from '../../src/providers/kit/implementation';
import { hostEcho, isDynamicProviderHost, isReportedFailure, quietHostEchoes, withQuietFailures } from '../../src/providers/kit/context';
import { SettingsError } from '../../src/client/settings';

// The host's echo of a failure (cmd/dynamic-provider: console.error(`${e}: ${e.stack}`)) is dropped for the
// failures we report on purpose, and kept for bugs and with ZONEGUARD_DEBUG set. The engine test in
// test/resilience/failures.test.ts shows the result on a real run.

describe('isReportedFailure', () => {
  test.each([
    ['a provider refusal', new ProviderError('CspPolicy in zone z: adoptPolicyId names no policy'), true],
    ['a client error', new ZoneGuardError('GET /zones/z failed: HTTP 403', { status: 403, method: 'GET', path: '/zones/z' }), true],
    ['missing credentials', new SettingsError([{ field: 'apiToken', reason: 'missing' }]), true],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')"), false],
    ['a plain Error', new Error('boom'), false],
    ['not an Error', 'boom', false],
  ])('%s: %s', (_why, error, reported) => {
    expect(isReportedFailure(error)).toBe(reported);
  });
});

describe('isDynamicProviderHost', () => {
  test.each([
    [['node', '/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js', '127.0.0.1:1'], true],
    [['node', '/p/node_modules/@pulumi/pulumi/cmd/dynamic-provider'], true],
    [['node', '/p/node_modules/.bin/jest'], false],
    [['node'], false],
  ])('%j', (argv, host) => {
    expect(isDynamicProviderHost(argv)).toBe(host);
  });
});

describe('withQuietFailures and quietHostEchoes', () => {
  /** A console whose error() records what it prints, with the filter installed. */
  function hostConsole() {
    const printed: unknown[][] = [];
    const target = { error: (...args: unknown[]) => void printed.push(args) };
    quietHostEchoes(target);
    quietHostEchoes(target);
    return { target, printed };
  }
  const failing = (error: unknown): Implementation =>
    Object.fromEntries(
      ['configure', 'check', 'diff', 'create', 'read', 'update', 'delete'].map((name) => [name, async () => Promise.reject(error)]),
    ) as unknown as Implementation;

  /** Calls `method`, then prints what the host prints for its failure, and answers the console's lines. */
  async function hostRun(implementation: Implementation, method: 'check' | 'read' | 'create', error: Error) {
    const { target, printed } = hostConsole();
    await expect((implementation[method] as () => Promise<unknown>)()).rejects.toBe(error);
    target.error(hostEcho(error));
    target.error('zoneguard: a note of our own');
    return printed.map((args) => String(args[0]));
  }

  test.each(['check', 'read'] as const)("a reported failure of %s is not echoed; the host's other lines are", async (method) => {
    const error = new ProviderError('CspPolicy abc in zone z: reading the policy: GET /zones/z failed: HTTP 403');
    expect(await hostRun(withQuietFailures(failing(error), {}), method, error)).toEqual(['zoneguard: a note of our own']);
  });

  test('a bug keeps its echo with the stack trace', async () => {
    const error = new TypeError("Cannot read properties of undefined (reading 'id')");
    const lines = await hostRun(withQuietFailures(failing(error), {}), 'read', error);
    expect(lines).toEqual([hostEcho(error), 'zoneguard: a note of our own']);
    expect(lines[0]).toMatch(/^TypeError: Cannot read properties of undefined \(reading 'id'\): TypeError: .*\n\s+at /);
  });

  test('with ZONEGUARD_DEBUG set, every echo is printed', async () => {
    const error = new ProviderError('CspPolicy abc in zone z: reading the policy: GET /zones/z failed: HTTP 403');
    expect(await hostRun(withQuietFailures(failing(error), { ZONEGUARD_DEBUG: '1' }), 'read', error)).toEqual([
      hostEcho(error),
      'zoneguard: a note of our own',
    ]);
  });

  test('a failure of create, which the host does not echo, is not held back: a later identical line prints', async () => {
    const error = new ProviderError('FirewallRuleWithFilter in zone z: creating the rule: POST failed: HTTP 400');
    expect(await hostRun(withQuietFailures(failing(error), {}), 'create', error)).toEqual([hostEcho(error), 'zoneguard: a note of our own']);
  });

  test('results pass through unchanged', async () => {
    const implementation = { check: async (_olds: unknown, news: unknown) => ({ inputs: news, failures: [] }) } as unknown as Implementation;
    await expect(withQuietFailures(implementation, {}).check({}, { a: 1 })).resolves.toEqual({ inputs: { a: 1 }, failures: [] });
  });
});
