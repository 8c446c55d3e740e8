// The stack's owner id (docs/ownership.md#owner-id): drawn once by its resource's create, refused where the engine
// skips checkpoints (a killed run would lose it). Pure: the provider makes no call.
import { ownerIdRefusal, skipsCheckpoints, stackOwner } from '../../src/providers/stack-owner';

test.each<[string | undefined, boolean]>([
  [undefined, false],
  ['', false],
  ['false', false],
  ['0', false],
  ['true', true],
  ['1', true],
  ['TRUE', true],
  ['t', true],
])('PULUMI_SKIP_CHECKPOINTS=%s skips checkpoints: %s (as the engine reads it)', (value, skips) => {
  expect(skipsCheckpoints(value === undefined ? {} : { PULUMI_SKIP_CHECKPOINTS: value })).toBe(skips);
  expect(ownerIdRefusal(value === undefined ? {} : { PULUMI_SKIP_CHECKPOINTS: value }) !== undefined).toBe(skips);
});

test('the refusal says why and what to run', () => {
  expect(ownerIdRefusal({ PULUMI_SKIP_CHECKPOINTS: 'true' })).toBe(
    "zoneguard: this stack's first up records its owner id (docs/ownership.md#owner-id), and PULUMI_SKIP_CHECKPOINTS is set, so a run killed " +
      'before its end would lose it; run this up once without PULUMI_SKIP_CHECKPOINTS, then skip checkpoints from the next up on',
  );
});

test('a create draws a new id of 16 hex digits each time; nothing ever changes it', async () => {
  const saved = process.env.PULUMI_SKIP_CHECKPOINTS;
  delete process.env.PULUMI_SKIP_CHECKPOINTS;
  try {
    const first = await stackOwner.create({});
    const second = await stackOwner.create({});
    expect(first.id).toMatch(/^[0-9a-f]{16}$/);
    expect(first.outs).toEqual({ ownerId: first.id });
    expect(second.id).not.toBe(first.id);
    expect(await stackOwner.diff(first.id, first.outs, {})).toEqual({ changes: false });
    expect(await stackOwner.read(first.id, first.outs)).toEqual({ id: first.id, props: first.outs });
  } finally {
    if (saved !== undefined) process.env.PULUMI_SKIP_CHECKPOINTS = saved;
  }
});

test('with checkpoints skipped, the create is refused and draws nothing', async () => {
  const saved = process.env.PULUMI_SKIP_CHECKPOINTS;
  process.env.PULUMI_SKIP_CHECKPOINTS = 'true';
  try {
    await expect(stackOwner.create({})).rejects.toThrow('PULUMI_SKIP_CHECKPOINTS is set');
  } finally {
    if (saved === undefined) delete process.env.PULUMI_SKIP_CHECKPOINTS;
    else process.env.PULUMI_SKIP_CHECKPOINTS = saved;
  }
});
