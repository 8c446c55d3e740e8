import type { Deployment } from '@pulumi/pulumi/automation';
import { STACK_OWNER_TYPE, kindOfType, typeToken, type ResourceKind } from '../../src/kinds';
import { MARKER_KEY, OWNER_ID_KEY, ownerMarker } from '../../src/kinds/marker';
import { CUSTOM_PHASE, MANAGED_PHASE, RATELIMIT_PHASE } from '../../src/schemas';
import { testClient } from '../support/emulator';
import {
  DECLARED_E8E93DD,
  PROJECT,
  STACK,
  ZONE_ID,
  expectFixtureHolds,
  firstUp,
  openUpgradeFixture,
  previewShows,
  resourcesOf,
  stateOwnerId,
  testBeforeFirstUp,
  upgradeSteps,
  writes,
  type Declared,
  type StateResource,
  type UpgradeFixture,
} from './upgrade-fixture';

// Issue 34's upgrade to owner ids (docs/ownership.md#owner-id): a stack made by the package of 7b5964d, the last
// commit before them (one resource of each of its nine kinds, through the real engine; fixtures/upgrade-7b5964d/README.md
// says how), holds objects whose owner markers were made without an owner id. Imported into a fresh stack of this
// build against the emulator on the state that run left: a preview shows the owner id's resource created and one
// update per marked resource and sends no request; a refresh writes nothing; the up writes each object's marker anew,
// once, from the owner id it drew; the preview after it is clean and sends no request.
jest.setTimeout(300_000);

const DECLARED: Declared = [...DECLARED_E8E93DD, ['wp-login', 'CustomRule'], ['login', 'RateLimitRule']];
/** The kinds whose objects carry an owner marker (all but PageGuardSettings and WafMigration, which have no field for it). */
const MARKED: ResourceKind[] = ['CspPolicy', 'FirewallRuleWithFilter', 'FirewallFilter', 'FirewallRule', 'WafManagedRules', 'CustomRule', 'RateLimitRule'];
const STEPS = upgradeSteps(DECLARED, MARKED);
/** The program's resources whose objects carry a marker. */
const MARKED_RESOURCES = DECLARED.filter(([, kind]) => MARKED.includes(kind));

/** The marker of the program's resource `name` of `kind`, made from `ownerId` (undefined: as 7b5964d made it). */
const markerOf = (ownerId: string | undefined, kind: ResourceKind, name: string) => ownerMarker({ ownerId, project: PROJECT, stack: STACK, parent: '', kind, name });
/** The resource of `kind` named `name` among `resources`. */
function resourceOf(resources: StateResource[], kind: ResourceKind, name: string): StateResource {
  const found = resources.find((resource) => resource.type === typeToken(kind) && resource.urn.endsWith(`::${name}`));
  if (!found) throw new Error(`no ${kind} ${name} among ${resources.map((resource) => resource.urn).join(', ')}`);
  return found;
}

/** The marker each of zoneguard's resources of a state records as written on its object, and the owner id it was made from, by `kind name`. */
function recordedMarkers(resources: StateResource[]): Record<string, { marker: unknown; ownerId: unknown }> {
  return Object.fromEntries(
    resources.flatMap((resource) => {
      const kind = kindOfType(resource.type);
      const props = resource.outputs ?? {};
      return kind === undefined ? [] : [[`${kind} ${resource.urn.split('::').pop()}`, { marker: props[MARKER_KEY], ownerId: props[OWNER_ID_KEY] }]];
    }),
  );
}

/** The write that puts its marker on each marked resource's object, by kind: of the object the fixture's state holds. */
function markerWrites(): Record<string, string> {
  const outputs = (kind: ResourceKind, name: string) => resourceOf(fixtureResources, kind, name).outputs ?? {};
  const rulesetRule = (kind: ResourceKind, name: string) => `PATCH /rulesets/${String(outputs(kind, name).rulesetId)}/rules/${String(outputs(kind, name).ruleId)}`;
  return {
    CspPolicy: `PUT /page_guard/policies/${String(outputs('CspPolicy', 'policy').policyId)}`,
    FirewallRuleWithFilter: `PUT /firewall/rules/${String(outputs('FirewallRuleWithFilter', 'scanners').ruleId)}`,
    FirewallFilter: `PUT /filters/${String(outputs('FirewallFilter', 'admin').filterId)}`,
    FirewallRule: `PUT /firewall/rules/${String(outputs('FirewallRule', 'admin').ruleId)}`,
    WafManagedRules: `PUT /rulesets/phases/${MANAGED_PHASE}/entrypoint`,
    CustomRule: rulesetRule('CustomRule', 'wp-login'),
    RateLimitRule: rulesetRule('RateLimitRule', 'login'),
  };
}

let fixture: UpgradeFixture;
/** The fixture's deployment's resources, as committed: their ids name the objects the up writes. */
let fixtureResources: StateResource[];

/** What the zone's objects carry in the fields their markers are written in, each with its owner's text. */
async function carried() {
  const inventory = await fixture.sandbox.emulator.admin.inventory(ZONE_ID);
  const client = testClient(fixture.sandbox.emulator);
  const [custom, ratelimit] = await Promise.all(([CUSTOM_PHASE, RATELIMIT_PHASE] as const).map((phase) => client.rulesets.getEntrypoint({ zoneId: ZONE_ID, phase })));
  const ids = (kind: ResourceKind, name: string) => resourceOf(fixtureResources, kind, name).outputs ?? {};
  const filter = (id: unknown) => inventory.filters.find((found) => found.id === id)?.ref;
  const rule = (id: unknown) => inventory.firewallRules.find((found) => found.id === id)?.ref;
  return {
    policy: inventory.cspPolicies.find((found) => found.id === ids('CspPolicy', 'policy').policyId)?.description,
    scanners: rule(ids('FirewallRuleWithFilter', 'scanners').ruleId),
    scannersFilter: filter(ids('FirewallRuleWithFilter', 'scanners').filterId),
    adminFilter: filter(ids('FirewallFilter', 'admin').filterId),
    adminRule: rule(ids('FirewallRule', 'admin').ruleId),
    managed: inventory.waf?.entrypoint?.description,
    wpLogin: custom?.rules.find((found) => found.id === ids('CustomRule', 'wp-login').ruleId)?.ref,
    login: ratelimit?.rules.find((found) => found.id === ids('RateLimitRule', 'login').ruleId)?.ref,
  };
}

/** What the objects carry when each resource's marker is `marker(kind, name)`, the scanners rule's filter aside. */
const carrying = (marker: (kind: ResourceKind, name: string) => string) => ({
  policy: `upgrade: checkout scripts ${marker('CspPolicy', 'policy')}`,
  scanners: marker('FirewallRuleWithFilter', 'scanners'),
  adminFilter: `upgrade-admin ${marker('FirewallFilter', 'admin')}`,
  adminRule: marker('FirewallRule', 'admin'),
  managed: marker('WafManagedRules', 'managed'),
  wpLogin: `upgrade-wp-login ${marker('CustomRule', 'wp-login')}`,
  login: `upgrade-login ${marker('RateLimitRule', 'login')}`,
});
/**
 * The filter a FirewallRuleWithFilter made with its rule in one call carries that rule's marker as it was made: the
 * service refuses a write of such a filter on its own (docs/ownership.md), so the up cannot put the new one on it.
 */
const SCANNERS_FILTER = markerOf(undefined, 'FirewallRuleWithFilter', 'scanners');

/**
 * Asserts that each marked object carries its resource's marker made from `ownerId` (the scanners rule's filter aside),
 * and that the state records each marker written with that owner id.
 */
async function expectMarkedFrom(ownerId: string): Promise<void> {
  const marker = (kind: ResourceKind, name: string) => markerOf(ownerId, kind, name);
  expect(await carried()).toEqual({ ...carrying(marker), scannersFilter: SCANNERS_FILTER });
  const recorded = recordedMarkers(resourcesOf(await fixture.stack.exportStack()));
  const byResource = <T>(value: (kind: ResourceKind, name: string) => T) => Object.fromEntries(MARKED_RESOURCES.map(([name, kind]) => [`${kind} ${name}`, value(kind, name)]));
  expect(byResource((kind, name) => recorded[`${kind} ${name}`])).toEqual(byResource((kind, name) => ({ marker: marker(kind, name), ownerId })));
}

beforeAll(async () => {
  fixture = await openUpgradeFixture('upgrade-7b5964d');
  fixtureResources = resourcesOf(JSON.parse(fixture.text('stack.json')) as Deployment);
});

afterAll(async () => {
  await fixture?.close();
});

test('the fixture holds one resource of each kind of 7b5964d, markers made without an owner id, and no credential but placeholders', async () => {
  expectFixtureHolds(fixture, DECLARED);
  // Before owner ids: no owner id's resource, none recorded, and each marked resource's marker the one made without it.
  expect(fixtureResources.filter((resource) => resource.type === STACK_OWNER_TYPE)).toEqual([]);
  expect(recordedMarkers(fixtureResources)).toEqual(
    Object.fromEntries(DECLARED.map(([name, kind]) => [`${kind} ${name}`, { marker: MARKED.includes(kind) ? markerOf(undefined, kind, name) : undefined, ownerId: undefined }])),
  );
  expect(await carried()).toEqual({ ...carrying((kind, name) => markerOf(undefined, kind, name)), scannersFilter: SCANNERS_FILTER });
});

testBeforeFirstUp(() => fixture, STEPS, {
  preview: 'a preview with this build shows the owner id created and one update per marked resource, the rest the same, and sends no request',
  refresh: 'a refresh changes nothing and writes nothing; the preview after it still shows the same updates',
});

test('the up writes each marked object once, its marker made from the owner id it drew; the preview after it is clean and sends no request', async () => {
  await firstUp(fixture, STEPS);
  // One write per marked object, each of the object the fixture's state holds.
  expect((await writes(fixture)).sort()).toEqual(Object.values(markerWrites()).sort());
  const ownerId = await stateOwnerId(fixture);
  expect(ownerId).toMatch(/^[0-9a-f]{16}$/);
  await expectMarkedFrom(ownerId);
  await previewShows(fixture, STEPS.allSame, STEPS.summary);
});

test("the state an up killed after the markers' writes and before their checkpoints leaves: the next up finds each object carrying the marker it writes, and updates it", async () => {
  // What the kill leaves (the owner id recorded at its create, before every marked resource's update): the marked
  // resources' state still as the fixture's, without the owner id, and their objects carrying the markers the killed up wrote.
  const ownerId = await stateOwnerId(fixture);
  const deployment = await fixture.stack.exportStack();
  const before = new Map(MARKED_RESOURCES.map(([name, kind]) => resourceOf(fixtureResources, kind, name)).map((resource) => [resource.urn, resource]));
  const resources = resourcesOf(deployment).map((resource) => before.get(resource.urn) ?? resource);
  await fixture.stack.importStack({ ...deployment, deployment: { ...deployment.deployment, resources } });
  expect(await carried()).toEqual({ ...carrying((kind, name) => markerOf(ownerId, kind, name)), scannersFilter: SCANNERS_FILTER });
  await previewShows(fixture, STEPS.firstPreview.map((step) => step.replace(/^create/, 'same')).sort(), { same: STEPS.summary.same - MARKED.length, update: MARKED.length });
  await fixture.sandbox.emulator.admin.clearRequests();
  const up = await fixture.stack.up({ color: 'never' });
  expect(up.summary.resourceChanges).toEqual({ same: STEPS.summary.same - MARKED.length, update: MARKED.length });
  // Each object's update as the first up made it, but the managed entry point's: it holds the declared rules and marker already.
  const { WafManagedRules: _unchanged, ...rewritten } = markerWrites();
  expect((await writes(fixture)).sort()).toEqual(Object.values(rewritten).sort());
  await expectMarkedFrom(ownerId);
  await previewShows(fixture, STEPS.allSame, STEPS.summary);
});
