import { z } from 'zod';
import type { PageGuardSettingsWire, PageGuardSettingsUpdate } from '../schemas';
import { PageGuardSettingsUpdateSchema } from '../schemas/page-guard';
import { checkWithSchema } from './kit/check';
import { diffFields } from './kit/diff';
import { implementationOf } from './kit/context';
import { assertSealedLive, sealsLive } from './kit/seal';
import { step, unlessNotFound } from './kit/implementation';
import { PageGuardSettingsKind, diffPlan, inputsOf, requestOf, wireFields } from '../kinds';

/** Inputs of PageGuardSettings, as `check` validates them (src/kinds/page-guard-settings.ts). */
export const PageGuardSettingsArgsSchema = PageGuardSettingsKind.args;
export type PageGuardSettingsInputs = z.output<typeof PageGuardSettingsArgsSchema>;

/** A zone's settings in the provider's names: the current ones, or (as `previous`) those before the resource took them over. */
export interface ZoneSettings {
  enabled: boolean;
  useVendorReportingEndpoint?: boolean;
  useConnectionUrlPath?: boolean;
}

export type PageGuardSettingsOutputs = PageGuardSettingsInputs & { updatedAt?: string; previous: ZoneSettings };

/** The settings, from the field table (src/kinds/page-guard-settings.ts). */
const SETTING_NAMES = wireFields(PageGuardSettingsKind).map((field) => field.input);
/** The settings managed only when declared: every one but enabled. */
const OPTIONAL = SETTING_NAMES.filter((name) => name !== 'enabled');

/** Settings in the provider's names, from the service's: the fields the service sent (`enabled` always). */
export function settingsFromWire(settings: PageGuardSettingsWire): ZoneSettings {
  return { enabled: settings.enabled, ...inputsOf(PageGuardSettingsKind, settings) };
}

/** The PUT body for the given settings: only the fields that are set. */
export function settingsToWire(settings: Partial<ZoneSettings>): PageGuardSettingsUpdate {
  return requestOf(PageGuardSettingsUpdateSchema, PageGuardSettingsKind, settings);
}

/** The declared inputs as the service now holds them: the optional flags only where they are managed. */
export function managedView(zoneId: string, current: ZoneSettings, managed: Partial<PageGuardSettingsInputs>) {
  const view: PageGuardSettingsInputs = { zoneId, enabled: current.enabled };
  for (const field of OPTIONAL) {
    if (managed[field] !== undefined) view[field] = current[field] ?? managed[field];
  }
  return view;
}

/** The declared settings that differ from the current ones. */
export function changedSettings(current: ZoneSettings, desired: Partial<PageGuardSettingsInputs>): Partial<ZoneSettings> {
  return Object.fromEntries(
    SETTING_NAMES
      .filter((field) => desired[field] !== undefined && desired[field] !== current[field])
      .map((field) => [field, desired[field]]),
  );
}

const DIFF = diffPlan(PageGuardSettingsKind);

export const pageGuardSettings = implementationOf<PageGuardSettingsInputs, PageGuardSettingsOutputs>('PageGuardSettings', {
  async check(_ctx, _olds, news) {
    return checkWithSchema(PageGuardSettingsArgsSchema, news, 'PageGuardSettings');
  },

  async diff(_ctx, _id, olds, news) {
    // One per zone: another zone is another resource (its create takes that zone over, its delete restores this one).
    return diffFields(olds, news, DIFF);
  },

  async create(ctx, inputs) {
    const { client } = ctx;
    const found = await step(`${ctx.label()}: reading the current settings`, () => client.pageGuard.get({ zoneId: inputs.zoneId }));
    const previous = settingsFromWire(found);
    // Write only what differs: taking over settings already as declared changes nothing on the service.
    const changes = changedSettings(previous, inputs);
    const current =
      Object.keys(changes).length === 0
        ? { ...previous, updatedAt: found.updated_at }
        : await step(`${ctx.label()}: updating the settings`, async () => {
            const result = await client.pageGuard.update({ zoneId: inputs.zoneId, ...settingsToWire(changes) });
            return { ...previous, ...changes, ...settingsFromWire(result), updatedAt: result.updated_at };
          });
    const outs: PageGuardSettingsOutputs = {
      ...managedView(inputs.zoneId, current, inputs),
      ...(current.updatedAt ? { updatedAt: current.updatedAt } : {}),
      previous,
    };
    return { id: inputs.zoneId, outs };
  },

  async read(ctx, id, olds) {
    const settings = await step(`${ctx.label()}: reading the settings`, () =>
      unlessNotFound(() => ctx.client.pageGuard.get({ zoneId: olds.zoneId }), undefined),
    );
    if (!settings) return { id: '' };
    const inputs = managedView(olds.zoneId, settingsFromWire(settings), olds);
    const outs: PageGuardSettingsOutputs = {
      ...inputs,
      ...(settings.updated_at ? { updatedAt: settings.updated_at } : {}),
      previous: olds.previous,
    };
    return { id, props: outs, inputs };
  },

  async update(ctx, id, before, desired) {
    // A sealed up: the settings as the sealed preview read them (docs/sealed-previews.md). The update reads nothing
    // else first, so under a seal that holds the preview's read this is one read of the zone's settings, and none without.
    if (sealsLive('PageGuardSettings', desired)) {
      const found = await step(`${ctx.label()}: reading the settings`, () =>
        unlessNotFound(() => ctx.client.pageGuard.get({ zoneId: before.zoneId }), undefined),
      );
      assertSealedLive('PageGuardSettings', desired, id, found && managedView(before.zoneId, settingsFromWire(found), before));
    }
    const changed = changedSettings(before, desired);
    const result = await step(`${ctx.label()}: updating the settings`, () =>
      ctx.client.pageGuard.update({ zoneId: desired.zoneId, ...settingsToWire(changed) }),
    );
    const outs: PageGuardSettingsOutputs = {
      ...managedView(desired.zoneId, { ...desired, ...settingsFromWire(result) }, desired),
      ...(result.updated_at ? { updatedAt: result.updated_at } : {}),
      previous: before.previous,
    };
    return { outs };
  },

  async delete(ctx, _id, olds) {
    // Put back what the zone had before this resource took it over; a zone that is gone has nothing to restore.
    await step(`${ctx.label()}: restoring the previous settings`, () =>
      unlessNotFound(() => ctx.client.pageGuard.update({ zoneId: olds.zoneId, ...settingsToWire(olds.previous) }), undefined),
    );
  },
});
