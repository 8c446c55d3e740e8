import * as fs from 'node:fs';
import type { Deployment, StepEventStateMetadata } from '@pulumi/pulumi/automation';
import { STACK_OWNER_TYPE } from '../../src/kinds';
import { DECLARED_E8E93DD, expectFixtureHolds, openUpgradeFixture, resourcesOf, steps, upgradeSteps, writes, type Declared, type StateResource, type UpgradeFixture } from './upgrade-fixture';

// The state of a stack made before issue 37's restructuring of the providers shows no diff after it: a stack made by
// the package of 7180a8b, the last commit before it (each of the nine kinds with the optional fields a user sets,
// through the real engine; fixtures/upgrade-7180a8b/README.md says how), imported into a fresh stack of this build
// against the emulator on the state that run left. A preview and a preview with refresh show every step `same`; a
// refresh records the same inputs and outputs; nothing is written to the service, and its objects stay as they were.
jest.setTimeout(300_000);

const DECLARED: Declared = [...DECLARED_E8E93DD, ['office', 'CustomRule'], ['wp-login', 'CustomRule'], ['login', 'RateLimitRule']];
/** The steps of a clean run: no object of 7180a8b lacks an owner marker, so none is updated. */
const STEPS = upgradeSteps(DECLARED, []);

let fixture: UpgradeFixture;
/** The emulator's state as the fixture's run left it (fresh credentials in it): the objects a run must leave alone. */
let objects: unknown;
/** The fixture's deployment's resources, as committed. */
let fixtureResources: StateResource[];

/** What a deployment records of each of zoneguard's resources, by URN: its id, inputs and outputs. */
const recorded = (resources: StateResource[]) =>
  Object.fromEntries(resources.filter((resource) => resource.type.includes('/zoneguard:')).map(({ urn, id, inputs, outputs }) => [urn, { id, inputs, outputs }]));
/** The emulator's state now. */
const stateNow = () => JSON.parse(fs.readFileSync(fixture.statePath, 'utf8')) as unknown;

beforeAll(async () => {
  fixture = await openUpgradeFixture('upgrade-7180a8b');
  objects = stateNow();
  fixtureResources = resourcesOf(JSON.parse(fixture.text('stack.json')) as Deployment);
});

afterAll(async () => {
  await fixture?.close();
});

afterEach(async () => {
  // Whatever the run, the service's objects are as the fixture's run left them and it got no write.
  expect(await writes(fixture)).toEqual([]);
  expect(stateNow()).toEqual(objects);
});

test('the fixture holds each kind of 7180a8b and its owner id, and no credential but placeholders', () => {
  expectFixtureHolds(fixture, DECLARED, [STACK_OWNER_TYPE]);
});

test('a preview with this build shows every resource the same and sends no request', async () => {
  await fixture.sandbox.emulator.admin.clearRequests();
  const seen = await steps(async (onEvent) => (await fixture.stack.preview({ color: 'never', onEvent })).changeSummary as Record<string, number>);
  expect(seen).toEqual({ ops: STEPS.allSame, summary: STEPS.summary });
  expect(await fixture.sandbox.emulator.admin.requests()).toEqual([]);
});

test('a preview with refresh reads every object, records each as the state holds it, and shows every resource the same', async () => {
  await fixture.sandbox.emulator.admin.clearRequests();
  const reads: Array<{ urn: string; old: unknown; new: unknown }> = [];
  const seen = await steps(async (onEvent) => {
    const preview = await fixture.stack.preview({
      color: 'never',
      refresh: true,
      onEvent: (event) => {
        onEvent(event);
        const step = event.resOutputsEvent?.metadata;
        const held = (state: StepEventStateMetadata | undefined) => ({ inputs: state?.inputs, outputs: state?.outputs });
        if (step?.op === 'refresh' && step.type.includes('/zoneguard:')) reads.push({ urn: step.urn, old: held(step.old), new: held(step.new) });
      },
    });
    return preview.changeSummary as Record<string, number>;
  });
  expect(seen).toEqual({ ops: [...STEPS.allSame, ...STEPS.allSame.map((step) => step.replace(/^same /, 'refresh '))].sort(), summary: STEPS.summary });
  // Each of zoneguard's resources read once, and what the read records is what the state held.
  expect(reads.map((read) => read.urn).sort()).toEqual(Object.keys(recorded(fixtureResources)).sort());
  expect(Object.fromEntries(reads.map((read) => [read.urn, read.new]))).toEqual(Object.fromEntries(reads.map((read) => [read.urn, read.old])));
});

test('a refresh records every resource as 7180a8b did, and the preview after it shows every resource the same', async () => {
  await fixture.sandbox.emulator.admin.clearRequests();
  const refresh = await fixture.stack.refresh({ color: 'never' });
  expect(refresh.summary.resourceChanges).toEqual(STEPS.summary);
  // Every resource of zoneguard whole (the stored closure included); the default provider records the fresh token.
  expect(recorded(resourcesOf(await fixture.stack.exportStack()))).toEqual(recorded(fixtureResources));
  const seen = await steps(async (onEvent) => (await fixture.stack.preview({ color: 'never', onEvent })).changeSummary as Record<string, number>);
  expect(seen).toEqual({ ops: STEPS.allSame, summary: STEPS.summary });
});
