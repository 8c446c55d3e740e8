// The owner marker (docs/ownership.md): its text on the wire and what follows from it, as tables; then the marked
// providers against the emulator over loopback HTTP, with the owner markers the resource classes pass in.
import { KINDS } from '../../src/kinds';
import { MARKER_KEY, OWNER_ID_KEY, OWNER_KEY, ownerMarker, standing } from '../../src/kinds/marker';
import { NAME_KEY, implementation } from '../../src/providers';
import { adoptionBlock, markerOutdated, writeBlock, writtenMarker } from '../../src/providers/kit/marker';
import { PREVIEW_UNKNOWN } from '../../src/unknown';
import { resetOwnership } from '../../src/providers/kit/ownership';
import { MARKER_ROOM, looksMarked, splitMarked, withMarker } from '../../src/schemas/owner-marker';
import { sampleInputs } from '../support/kind-samples';
import { checkedBy, useCaughtStderr, useProviderFixture, writesIn } from './support';

const MINE = 'zg:0123456789';
const OTHER = 'zg:abcdefabcd';

describe('the marker text', () => {
  test.each<[string, string | undefined, { own: string; marker?: string }]>([
    ['the marker alone', MINE, { own: '', marker: MINE }],
    ['after the user’s text and one space', `block bots ${MINE}`, { own: 'block bots', marker: MINE }],
    ['no marker', 'block bots', { own: 'block bots' }],
    ['nothing', undefined, { own: '' }],
    ['a marker not at the end is the user’s text', `${MINE} block`, { own: `${MINE} block` }],
    ['nine digits is no marker', 'x zg:012345678', { own: 'x zg:012345678' }],
    ['upper-case hex is no marker', 'x zg:ABCDEFABCD', { own: 'x zg:ABCDEFABCD' }],
    ['glued to the text is no marker', `x${MINE}`, { own: `x${MINE}` }],
  ])('%s', (_case, text, expected) => {
    expect(splitMarked(text)).toEqual(expected);
  });

  test('withMarker and splitMarked are inverse, and the marker takes MARKER_ROOM characters', () => {
    for (const own of ['', 'ref-1', 'a b c']) expect(splitMarked(withMarker(own, MINE))).toEqual({ own, marker: MINE });
    expect(withMarker('x', MINE).length - 'x'.length).toBe(MARKER_ROOM);
    expect(looksMarked(`ticket ${MINE}`)).toBe(true);
    expect(looksMarked('ticket 12')).toBe(false);
  });

  test('ownerMarker is stable and tells apart every part of the identity, the stack\'s owner id included', () => {
    const base = { ownerId: '0123456789abcdef', project: 'p', stack: 's', parent: '', kind: 'CspPolicy', name: 'n' };
    expect(ownerMarker(base)).toBe(ownerMarker({ ...base }));
    expect(ownerMarker(base)).toMatch(/^zg:[0-9a-f]{10}$/);
    // Two stacks of one project and stack name on two backends draw two owner ids; undefined is a marker made before owner ids.
    const variants = [{ ownerId: 'fedcba9876543210' }, { ownerId: undefined }, { project: 'q' }, { stack: 't' }, { parent: 'urn:pulumi:s::p::T::a' }, { kind: 'FirewallRule' }, { name: 'm' }];
    const markers = new Set([base, ...variants.map((change) => ({ ...base, ...change }))].map(ownerMarker));
    expect(markers.size).toBe(variants.length + 1);
  });
});

describe('decisions from the marker', () => {
  test.each<[string | undefined, string, 'mine' | 'unmarked' | 'other']>([
    [MINE, MINE, 'mine'],
    [undefined, MINE, 'unmarked'],
    [OTHER, MINE, 'other'],
  ])('standing(%s, %s) is %s', (live, mine, expected) => {
    expect(standing(live, mine)).toBe(expected);
  });

  test.each<[string, string | undefined, boolean, boolean]>([
    ['an unmarked object is adopted as before', undefined, false, false],
    ['an object of its own marker is adopted again', MINE, false, false],
    ['another owner’s is refused', OTHER, false, true],
    ['another owner’s with takeOver is taken over', OTHER, true, false],
  ])('adoption: %s', (_case, live, takeOver, refused) => {
    const block = adoptionBlock('CspPolicy p', live, MINE, takeOver, 'adoptPolicyId');
    expect(block !== undefined).toBe(refused);
  });

  test('the adoption refusal names the marker and both ways out', () => {
    expect(adoptionBlock('CspPolicy p', OTHER, MINE, false, 'adoptPolicyId')).toBe(
      `CspPolicy p: refused before any change: it is marked as held by another owner (marker ${OTHER} in its ref or description; ` +
        'zoneguard orphans names the stack that holds it). If that owner no longer needs it, or this resource replaces it, add ' +
        'takeOver: true beside adoptPolicyId: the marker moves to this resource and the old owner\'s delete then leaves the object. ' +
        'Otherwise remove adoptPolicyId to create an object of its own',
    );
  });

  test.each<['update' | 'delete', string | undefined, boolean]>([
    ['update', MINE, false],
    ['update', undefined, false],
    ['update', OTHER, true],
    ['delete', MINE, false],
    ['delete', undefined, false],
    ['delete', OTHER, true],
  ])('%s of an object marked %s: blocked %s', (verb, live, blocked) => {
    expect(writeBlock('CspPolicy p', verb, live, MINE) !== undefined).toBe(blocked);
  });
});

describe('markers made before owner ids (docs/ownership.md#owner-id)', () => {
  const LEGACY = 'zg:1111111111';
  const ID = '0123456789abcdef';
  const program = { [OWNER_KEY]: MINE, [OWNER_ID_KEY]: ID };
  test.each<[string, Record<string, unknown>, Record<string, unknown>, boolean, string]>([
    ['made before markers', {}, program, true, MINE],
    ['made before owner ids: the program\'s marker is written', { [MARKER_KEY]: LEGACY }, program, true, MINE],
    ['made with an owner id: the recorded marker stays', { [MARKER_KEY]: MINE, [OWNER_ID_KEY]: ID }, program, false, MINE],
    ['renamed with aliases: its recorded marker stays', { [MARKER_KEY]: OTHER, [OWNER_ID_KEY]: ID }, program, false, OTHER],
    ['a preview of the up that draws the owner id counts the write', { [MARKER_KEY]: LEGACY }, { [OWNER_KEY]: PREVIEW_UNKNOWN, [OWNER_ID_KEY]: PREVIEW_UNKNOWN }, true, 'stand-in'],
    ['a refresh diffs the state\'s inputs from before owner ids: nothing to write', { [MARKER_KEY]: LEGACY }, { [OWNER_KEY]: LEGACY }, false, LEGACY],
    ['a refresh of state from before markers: nothing to write', {}, {}, false, 'stand-in'],
  ])('%s', (_case, olds, news, outdated, written) => {
    expect(markerOutdated(olds, news)).toBe(outdated);
    const marker = writtenMarker('CspPolicy', olds, news);
    if (written === 'stand-in') expect(marker).toMatch(/^zg:[0-9a-f]{10}$/);
    else expect(marker).toBe(written);
  });
});

describe('the marked providers against the emulator', () => {
  const fx = useProviderFixture();
  let zoneId: string;
  const stderr = useCaughtStderr();
  beforeAll(async () => {
    zoneId = await fx.freshZone();
  });
  beforeEach(() => resetOwnership());

  const filter = implementation('FirewallFilter');
  const singleCall = implementation('FirewallRuleWithFilter');
  /** A FirewallFilter's inputs as its class sends them, owned by `owner`. */
  const filterInputs = (path: string, owner: string, extra: Record<string, unknown> = {}) => ({
    zoneId,
    expression: `(http.request.uri.path eq "${path}")`,
    ref: 'team-a',
    [NAME_KEY]: 'filter',
    [OWNER_KEY]: owner,
    ...extra,
  });

  test('check leaves the marker room: a ref of 36 characters passes, 37 or one that ends in a marker is refused before any call', async () => {
    await checkedBy(filter, filterInputs('/room', MINE, { ref: 'r'.repeat(36) }));
    await fx.requestsSince();
    expect((await filter.check({}, filterInputs('/room', MINE, { ref: 'r'.repeat(37) }))).failures).toEqual([
      { property: 'ref', reason: `FirewallFilter.ref: must be at most 36 characters: zoneguard keeps ${MARKER_ROOM} of the service's 50 for its owner marker (docs/ownership.md)` },
    ]);
    expect((await filter.check({}, filterInputs('/room', MINE, { ref: `x ${OTHER}` }))).failures).toEqual([
      { property: 'ref', reason: 'FirewallFilter.ref: must not end in a zoneguard owner marker (zg: and 10 hex digits): zoneguard writes it (docs/ownership.md)' },
    ]);
    expect(await fx.requestsSince()).toEqual([]);
  });

  /** Every kind whose objects carry the marker in a field of theirs, from the registry: the field and the service's limit of it. */
  const MARKED = KINDS.flatMap(({ kind, identity: { marker, markerMax } }) => (marker === 'none' || markerMax === undefined ? [] : [[kind, marker, markerMax] as const]));

  test.each(MARKED)("%s.%s: a text over the service's limit or only over the marker's room gets one refusal, naming the room", async (kind, field, max) => {
    const room = max - MARKER_ROOM;
    const refusal = [{ property: field, reason: `${kind}.${field}: must be at most ${room} characters: zoneguard keeps ${MARKER_ROOM} of the service's ${max} for its owner marker (docs/ownership.md)` }];
    const check = async (length: number) =>
      (await implementation(kind).check({}, { ...sampleInputs(kind, zoneId), [field]: 'x'.repeat(length), [NAME_KEY]: 'marked', [OWNER_KEY]: MINE })).failures;
    await fx.requestsSince();
    expect(await check(max + 1)).toEqual(refusal);
    expect(await check(room + 1)).toEqual(refusal);
    expect(await check(room)).toEqual([]);
    expect(await fx.requestsSince()).toEqual([]);
  });

  test('a create writes the marker after the user’s ref; the outputs show the user’s ref and record the marker', async () => {
    const { id, outs } = await filter.create(await checkedBy(filter, filterInputs('/create', MINE)));
    expect(outs).toMatchObject({ ref: 'team-a', [MARKER_KEY]: MINE });
    expect(await fx.client.filters.get({ zoneId, filterId: id })).toMatchObject({ ref: `team-a ${MINE}` });
    const read = await filter.read(id, outs as Record<string, unknown>);
    expect(read.props).toMatchObject({ ref: 'team-a', [MARKER_KEY]: MINE });
    expect(read.inputs).toMatchObject({ ref: 'team-a' });
    expect(read.inputs).not.toHaveProperty(MARKER_KEY);
  });

  test('taken over by another owner: the old owner’s update is refused before any write, its delete skipped with one line, the object stays', async () => {
    const made = await filter.create(await checkedBy(filter, filterInputs('/taken', MINE)));
    const state = made.outs as Record<string, unknown>;
    resetOwnership();
    await filter.create(await checkedBy(filter, filterInputs('/taken', OTHER, { [NAME_KEY]: 'other', adoptFilterId: made.id, takeOver: true })));
    expect(await fx.client.filters.get({ zoneId, filterId: made.id })).toMatchObject({ ref: `team-a ${OTHER}` });
    resetOwnership();
    await fx.requestsSince();
    await expect(filter.update(made.id, state, await checkedBy(filter, filterInputs('/taken', MINE, { description: 'mine again' })))).rejects.toThrow(
      `FirewallFilter 'filter' ${made.id} in zone ${zoneId}: not updating it: it is marked as held by another owner (marker ${OTHER}`,
    );
    await filter.delete(made.id, state);
    expect(writesIn(await fx.requestsSince())).toEqual([]);
    expect(stderr.calls()).toContainEqual([expect.stringContaining(`zoneguard: FirewallFilter 'filter' ${made.id} in zone ${zoneId}: not deleting it: it is marked as held by another owner (marker ${OTHER}`)]);
    expect(await fx.client.filters.get({ zoneId, filterId: made.id })).toMatchObject({ id: made.id });
  });

  test('deleted by hand: the update says it is gone and to refresh, and writes nothing', async () => {
    const made = await filter.create(await checkedBy(filter, filterInputs('/gone', MINE)));
    await fx.client.filters.delete({ zoneId, filterId: made.id });
    await fx.requestsSince();
    await expect(filter.update(made.id, made.outs as Record<string, unknown>, await checkedBy(filter, filterInputs('/gone', MINE, { description: 'changed' })))).rejects.toThrow(
      `FirewallFilter 'filter' ${made.id} in zone ${zoneId}: it is gone (deleted outside of Pulumi since the last refresh), so there is nothing to update; run pulumi refresh, which takes it out of the state, then pulumi up, which creates it again`,
    );
    expect(writesIn(await fx.requestsSince())).toEqual([]);
  });

  test('state from before markers: the diff against the program counts one update, the update writes the marker, a refresh’s diff counts none', async () => {
    const [old] = await fx.client.filters.create({ zoneId, filters: [{ expression: '(http.request.uri.path eq "/before")', ref: 'team-a' }] });
    const state = { zoneId, expression: old!.expression, description: '', paused: false, ref: 'team-a', filterId: old!.id, [NAME_KEY]: 'filter' };
    const program = await checkedBy(filter, filterInputs('/before', MINE));
    expect((await filter.diff(old!.id, state, program)).changes).toBe(true);
    const { [OWNER_KEY]: _owner, ...oldInputs } = program;
    expect((await filter.diff(old!.id, state, oldInputs)).changes).toBe(false);
    const { outs } = await filter.update(old!.id, state, program);
    expect(outs).toMatchObject({ ref: 'team-a', [MARKER_KEY]: MINE });
    expect(await fx.client.filters.get({ zoneId, filterId: old!.id })).toMatchObject({ ref: `team-a ${MINE}` });
    expect((await filter.diff(old!.id, outs as Record<string, unknown>, program)).changes).toBe(false);
  });

  test('state from before owner ids: one update checks the object carries the old marker and writes the program\'s; the next diff is clean', async () => {
    const LEGACY = 'zg:1111111111';
    const ownerId = '0123456789abcdef';
    const made = await filter.create(await checkedBy(filter, filterInputs('/before-owner-ids', LEGACY)));
    const state = made.outs as Record<string, unknown>;
    expect(state).not.toHaveProperty(OWNER_ID_KEY);
    const program = await checkedBy(filter, filterInputs('/before-owner-ids', MINE, { [OWNER_ID_KEY]: ownerId }));
    expect((await filter.diff(made.id, state, program)).changes).toBe(true);
    await fx.requestsSince();
    const { outs } = await filter.update(made.id, state, program);
    expect(outs).toMatchObject({ ref: 'team-a', [MARKER_KEY]: MINE, [OWNER_ID_KEY]: ownerId });
    expect(await fx.client.filters.get({ zoneId, filterId: made.id })).toMatchObject({ ref: `team-a ${MINE}` });
    expect(writesIn(await fx.requestsSince())).toHaveLength(1);
    expect((await filter.diff(made.id, outs as Record<string, unknown>, program)).changes).toBe(false);
  });

  /**
   * A filter at `path` made before owner ids (its state's marker the legacy one), whose object has since been marked
   * `marker` out of band, and the program's inputs with the owner id; the request log cleared.
   */
  async function legacyFilterMarked(path: string, marker: string) {
    const made = await filter.create(await checkedBy(filter, filterInputs(path, 'zg:1111111111')));
    await fx.client.filters.update({ zoneId, filterId: made.id, expression: `(http.request.uri.path eq "${path}")`, ref: `team-a ${marker}` });
    await fx.requestsSince();
    return { made, program: await checkedBy(filter, filterInputs(path, MINE, { [OWNER_ID_KEY]: '0123456789abcdef' })) };
  }

  test('state from before owner ids whose object another owner marked since: the rewrite is refused before any write', async () => {
    const { made, program } = await legacyFilterMarked('/legacy-taken', OTHER);
    await expect(filter.update(made.id, made.outs as Record<string, unknown>, program)).rejects.toThrow(`it is marked as held by another owner (marker ${OTHER}`);
    expect(writesIn(await fx.requestsSince())).toEqual([]);
  });

  test('state from before owner ids whose object already carries the program\'s marker (an up killed after that write, before its checkpoint): the update writes it', async () => {
    const { made, program } = await legacyFilterMarked('/legacy-interrupted', MINE);
    const { outs } = await filter.update(made.id, made.outs as Record<string, unknown>, program);
    expect(outs).toMatchObject({ ref: 'team-a', [MARKER_KEY]: MINE, [OWNER_ID_KEY]: '0123456789abcdef' });
    expect(writesIn(await fx.requestsSince())).toHaveLength(1);
    expect(await fx.client.filters.get({ zoneId, filterId: made.id })).toMatchObject({ ref: `team-a ${MINE}` });
  });

  test('a single-call create refused for a duplicate expression reuses the leftover filter only when it carries its own marker', async () => {
    const expression = '(http.request.uri.path eq "/leftover")';
    const [leftover] = await fx.client.filters.create({ zoneId, filters: [{ expression, ref: MINE }] });
    const inputs = await checkedBy(singleCall, { zoneId, expression, action: 'block', [NAME_KEY]: 'rule', [OWNER_KEY]: MINE });
    const { outs } = await singleCall.create(inputs);
    expect(outs).toMatchObject({ filterId: leftover!.id, [MARKER_KEY]: MINE });

    const foreign = '(http.request.uri.path eq "/foreign")';
    const [theirs] = await fx.client.filters.create({ zoneId, filters: [{ expression: foreign, ref: `team-b ${OTHER}` }] });
    await expect(singleCall.create(await checkedBy(singleCall, { zoneId, expression: foreign, action: 'block', [NAME_KEY]: 'rule', [OWNER_KEY]: MINE }))).rejects.toThrow(
      `FirewallRuleWithFilter 'rule' in zone ${zoneId}: filter ${theirs!.id} of this zone already has this expression and no rule, and it is marked by another owner (${OTHER})`,
    );
    expect(await fx.client.filters.get({ zoneId, filterId: theirs!.id })).toMatchObject({ ref: `team-b ${OTHER}` });
  });
});
