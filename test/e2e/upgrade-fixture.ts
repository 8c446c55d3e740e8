import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Deployment, EngineEvent, PulumiFn, Stack } from '@pulumi/pulumi/automation';
import * as zoneguard from '../../src';
import { RESOURCE_KINDS, STACK_OWNER_TYPE, typeToken, type ResourceKind } from '../../src/kinds';
import { STACK_OWNER_NAME } from '../../src/resources/stack-owner';
import { writesOf } from '../support/emulator';
import { openSandbox, type EngineSandbox } from './harness';

// What the upgrade tests share (upgrade.test.ts, upgrade-owner-id.test.ts, upgrade-no-diff.test.ts): a stack made by an older build of the
// package through the real engine (fixtures/upgrade-*/README.md says how), imported into a fresh stack of this build
// against the emulator on the state that run left, and the steps its engine runs are expected to show.

/** The fixtures' zone, project and stack (make.js): the URNs in their deployments name them. */
export const ZONE_ID = '5e7a3c2b1d0f49e8a6b5c4d3e2f1a0b9';
export const STACK = 'upgrade';
export const PROJECT = 'zoneguard-e2e-upgrade';

/** The fixtures' credential placeholders (README.md). */
const CREDENTIALS = ['<api-token>', '<api-key>', '<zone-token>'] as const;

/** A program's resources, by name and kind. */
export type Declared = Array<[name: string, kind: ResourceKind]>;

/** The resources of fixtures/upgrade-e8e93dd/program.js: one of each of the seven kinds of e8e93dd. */
export const DECLARED_E8E93DD: Declared = [
  ['settings', 'PageGuardSettings'],
  ['policy', 'CspPolicy'],
  ['scanners', 'FirewallRuleWithFilter'],
  ['admin', 'FirewallFilter'],
  ['admin', 'FirewallRule'],
  ['migration', 'WafMigration'],
  ['managed', 'WafManagedRules'],
];

/**
 * The fixture's own program (fixtures/<name>/program.js, the one the older build ran), run against this build: its
 * `require('pulumi-zoneguard')` answers the package's entry as it is now (src/index.ts), so the program is the same
 * declaration through the current API. Run anew by every engine run, as an inline program is.
 */
export function fixtureProgram(name: string): PulumiFn {
  const text = fs.readFileSync(path.join(__dirname, 'fixtures', name, 'program.js'), 'utf8');
  // The program is a CommonJS module's body that needs only `require`: anything but the package from jest's modules,
  // so that it and the package share one @pulumi/pulumi.
  const body = new Function('require', text) as (load: (id: string) => unknown) => void;
  return async () => {
    body((id) => (id === 'pulumi-zoneguard' ? zoneguard : jest.requireActual<object>(id)));
    return {};
  };
}

/** A resource of a deployment, as these tests read it. */
export interface StateResource {
  type: string;
  urn: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** A fixture imported into a fresh stack of this build, against the emulator on the fixture's state. */
export interface UpgradeFixture {
  sandbox: EngineSandbox;
  stack: Stack;
  /** A file of the fixture, as committed (placeholders in it). */
  text(file: string): string;
  /** The emulator's state file, the fixture's with fresh credentials: the emulator writes it after every change. */
  statePath: string;
  close(): Promise<void>;
}

/** `text` with each placeholder replaced by its value. */
const filled = (text: string, values: Record<string, string>) => Object.entries(values).reduce((out, [placeholder, value]) => out.split(placeholder).join(value), text);

/** Imports the fixture `fixtures/<name>` into a stack of its program, with the fixture's project and stack names. */
export async function openUpgradeFixture(name: string): Promise<UpgradeFixture> {
  const text = (file: string) => fs.readFileSync(path.join(__dirname, 'fixtures', name, file), 'utf8');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zoneguard-upgrade-'));
  // Fresh credentials in place of the placeholders; the stack's default provider recorded the token and the base URL
  // (its config), so the deployment gets the same token and this emulator's address.
  const credentials = Object.fromEntries(CREDENTIALS.map((placeholder) => [placeholder, `upgrade-${randomBytes(16).toString('hex')}`]));
  const statePath = path.join(scratch, 'emulator-state.json');
  fs.writeFileSync(statePath, filled(text('emulator-state.json'), credentials), { mode: 0o600 });
  const sandbox = await openSandbox('upgrade', { statePath });
  const close = async () => {
    await sandbox.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  };
  try {
    const stack = await sandbox.stack(STACK, fixtureProgram(name), { [`${PROJECT}:zoneId`]: { value: ZONE_ID } });
    const deployment = filled(text('stack.json'), { '<api-token>': credentials['<api-token>']!, '<base-url>': sandbox.emulator.baseUrl });
    await stack.importStack(JSON.parse(deployment) as Deployment);
    return { sandbox, stack, text, statePath, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The resources of a deployment. */
export const resourcesOf = (deployment: Deployment): StateResource[] => (deployment.deployment.resources ?? []) as StateResource[];

/**
 * Asserts what every fixture holds: one resource of each of `declared` (and of `alsoTypes`, zoneguard's resources a
 * program does not declare), each kind still of the registry, and no credential but the placeholders (the emulator's,
 * and the token the stack's default provider records with its config).
 */
export function expectFixtureHolds(fixture: Pick<UpgradeFixture, 'text'>, declared: Declared, alsoTypes: string[] = []): void {
  const resources = resourcesOf(JSON.parse(fixture.text('stack.json')) as Deployment);
  const types = resources.map((resource) => resource.type);
  expect(types.filter((type) => type.includes('/zoneguard:')).sort()).toEqual([...declared.map(([, kind]) => typeToken(kind)), ...alsoTypes].sort());
  expect(declared.filter(([, kind]) => !RESOURCE_KINDS.includes(kind))).toEqual([]);
  const state = JSON.parse(fixture.text('emulator-state.json')) as {
    credentials: { apiTokens: string[]; apiKey: string };
    zones: Array<{ tokens: string[] }>;
  };
  const secrets = [...state.credentials.apiTokens, state.credentials.apiKey, ...state.zones.flatMap((zone) => zone.tokens)];
  expect([...new Set(secrets)].sort()).toEqual([...CREDENTIALS].sort());
  const provider = resources.find((resource) => resource.type === 'pulumi:providers:pulumi-nodejs');
  expect(provider?.inputs?.['zoneguard:apiToken']).toMatchObject({ plaintext: JSON.stringify('<api-token>') });
  expect(provider?.inputs?.['zoneguard:baseUrl']).toBe('<base-url>');
  for (const placeholder of ['<api-key>', '<zone-token>']) expect(fixture.text('stack.json')).not.toContain(placeholder);
}

/** The resource that keeps the stack's owner id (docs/ownership.md#owner-id): a stack from before it has none, its first up draws it. */
export const OWNER = `${STACK_OWNER_TYPE} ${STACK_OWNER_NAME}`;
const DEFAULT_PROVIDER = 'pulumi:providers:pulumi-nodejs default';

/** The steps and change summaries an upgraded stack's runs show, from its program's resources and those whose objects get a marker. */
export function upgradeSteps(declared: Declared, marked: readonly ResourceKind[]) {
  const step = (op: string, [name, kind]: Declared[number]) => `${op} ${typeToken(kind)} ${name}`;
  return {
    /** Before the first up: the owner id's resource created, the marked kinds' `update`, the rest and the default provider `same`. */
    firstPreview: [`create ${OWNER}`, ...declared.map((resource) => step(marked.includes(resource[1]) ? 'update' : 'same', resource)), `same ${DEFAULT_PROVIDER}`].sort(),
    firstSummary: { create: 1, same: declared.length + 1 - marked.length, update: marked.length },
    /** A refresh before the first up visits the fixture's resources (the owner id's is not in the state yet), and changes none. */
    refreshed: [...declared.map((resource) => step('refresh', resource)), `refresh ${DEFAULT_PROVIDER}`].sort(),
    refreshSummary: { same: declared.length + 1 },
    /** A clean preview: every resource of the program, the owner id's and the default provider `same`. */
    allSame: [...declared.map((resource) => step('same', resource)), `same ${OWNER}`, `same ${DEFAULT_PROVIDER}`].sort(),
    /** The change summary of a clean run: the resources, the owner id's and the stack, all the same. */
    summary: { same: declared.length + 2 },
  };
}

/** Every step of an engine run (preview or refresh), as `op type name`, and its change summary. */
export async function steps(
  run: (onEvent: (event: EngineEvent) => void) => Promise<Record<string, number> | undefined>,
): Promise<{ ops: string[]; summary: Record<string, number> | undefined }> {
  const ops: string[] = [];
  const summary = await run((event) => {
    const step = event.resourcePreEvent?.metadata;
    if (step && step.type !== 'pulumi:pulumi:Stack') ops.push(`${step.op} ${step.type} ${step.urn.split('::').pop()}`);
  });
  return { ops: ops.sort(), summary };
}

/** Asserts that a preview shows these steps and this summary, and sends no request. */
export async function previewShows({ sandbox, stack }: UpgradeFixture, ops: string[], summary: Record<string, number>): Promise<void> {
  await sandbox.emulator.admin.clearRequests();
  const seen = await steps(async (onEvent) => (await stack.preview({ color: 'never', onEvent })).changeSummary as Record<string, number>);
  expect(seen.ops).toEqual(ops);
  expect(seen.summary).toEqual(summary);
  expect(await sandbox.emulator.admin.requests()).toEqual([]);
}

/** A refresh's steps and change summary. */
export const refreshSteps = ({ stack }: UpgradeFixture) =>
  steps(async (onEvent) => (await stack.refresh({ color: 'never', onEvent })).summary.resourceChanges as Record<string, number>);

/**
 * The tests of an upgraded stack before its first up, titled `titles`: a preview shows the first preview's steps and
 * sends no request; a refresh changes nothing and writes nothing, and the preview after it still shows those steps.
 */
export function testBeforeFirstUp(fixture: () => UpgradeFixture, expected: ReturnType<typeof upgradeSteps>, titles: { preview: string; refresh: string }): void {
  test(titles.preview, async () => {
    await previewShows(fixture(), expected.firstPreview, expected.firstSummary);
  });
  test(titles.refresh, async () => {
    await fixture().sandbox.emulator.admin.clearRequests();
    const refresh = await refreshSteps(fixture());
    expect(refresh.ops).toEqual(expected.refreshed);
    expect(refresh.summary).toEqual(expected.refreshSummary);
    expect(await writes(fixture())).toEqual([]);
    await previewShows(fixture(), expected.firstPreview, expected.firstSummary);
  });
}

/** The first up of an upgraded stack, its request log cleared before: its change summary is the first preview's. */
export async function firstUp(fixture: UpgradeFixture, expected: ReturnType<typeof upgradeSteps>): Promise<void> {
  await fixture.sandbox.emulator.admin.clearRequests();
  const up = await fixture.stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toEqual(expected.firstSummary);
}

/** The writes the emulator received since its request log was last cleared, as `METHOD path` below the zone. */
export const writes = ({ sandbox }: UpgradeFixture): Promise<string[]> => writesOf(sandbox.emulator, { path: 'belowZone' });

/** The stack's owner id, as its state records it (the StackOwner resource's output). */
export async function stateOwnerId({ stack }: UpgradeFixture): Promise<string> {
  const owner = resourcesOf(await stack.exportStack()).find((resource) => resource.type === STACK_OWNER_TYPE);
  const ownerId = owner?.outputs?.ownerId;
  if (typeof ownerId !== 'string') throw new Error(`the stack's state holds no owner id: ${JSON.stringify(owner)}`);
  return ownerId;
}
