import type { ResourceKind } from '../../src/kinds';
import { ownerMarker } from '../../src/kinds/marker';
import {
  DECLARED_E8E93DD,
  PROJECT,
  STACK,
  ZONE_ID,
  expectFixtureHolds,
  firstUp,
  openUpgradeFixture,
  previewShows,
  stateOwnerId,
  testBeforeFirstUp,
  upgradeSteps,
  writes,
  type UpgradeFixture,
} from './upgrade-fixture';

// No change for existing stacks: a stack made by the package of e8e93dd (one resource of each kind, through the real
// engine; fixtures/upgrade-e8e93dd/README.md says how) is imported into a fresh stack of this build, against the
// emulator on the state that run left. A preview of the fixture's program run against the current API shows every
// step `same` and sends no request; a refresh changes nothing, and a preview after it is clean too.
jest.setTimeout(300_000);

/** The kinds whose objects carry an owner marker: their objects, made before markers, get it on the next up. */
const MARKED: ResourceKind[] = ['CspPolicy', 'FirewallRuleWithFilter', 'FirewallFilter', 'FirewallRule', 'WafManagedRules'];
const STEPS = upgradeSteps(DECLARED_E8E93DD, MARKED);

let fixture: UpgradeFixture;

beforeAll(async () => {
  fixture = await openUpgradeFixture('upgrade-e8e93dd');
});

afterAll(async () => {
  await fixture?.close();
});

test('the fixture holds one resource of each kind of e8e93dd, and no credential but placeholders', () => {
  // The kinds of e8e93dd, each still of the registry; a kind added since has no resource in a stack that old.
  expectFixtureHolds(fixture, DECLARED_E8E93DD);
});

testBeforeFirstUp(() => fixture, STEPS, {
  preview: 'a preview with this build shows one update per object without an owner marker, the rest the same, and sends no request',
  refresh: 'a refresh changes nothing and writes no marker; the preview after it still shows the same updates',
});

test("the next up writes each marker (one write per unmarked object, the user's text kept), and the preview after it is clean and sends no request", async () => {
  await firstUp(fixture, STEPS);
  expect((await writes(fixture)).map((write) => write.split(' ')[0])).toEqual(MARKED.map(() => 'PUT'));
  const inventory = await fixture.sandbox.emulator.admin.inventory(ZONE_ID);
  const marker = /^zg:[0-9a-f]{10}$/;
  // The marker is the one of the owner id the up drew, recorded in the state.
  const ownerId = await stateOwnerId(fixture);
  expect(ownerId).toMatch(/^[0-9a-f]{16}$/);
  const policyMarker = ownerMarker({ ownerId, project: PROJECT, stack: STACK, parent: '', kind: 'CspPolicy', name: 'policy' });
  expect(inventory.cspPolicies.map((policy) => policy.description)).toEqual([`upgrade: checkout scripts ${policyMarker}`]);
  expect(inventory.filters.map((filter) => filter.ref).sort()).toEqual([expect.stringMatching(/^upgrade-admin zg:[0-9a-f]{10}$/), undefined].sort());
  expect(inventory.firewallRules.map((rule) => rule.ref)).toEqual([expect.stringMatching(marker), expect.stringMatching(marker)]);
  await previewShows(fixture, STEPS.allSame, STEPS.summary);
});
