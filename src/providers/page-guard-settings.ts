import { z } from 'zod';
import { PAGE_GUARD_SETTING_FIELDS, type PageGuardSettingName, type PageGuardSettingsWire, type PageGuardSettingsUpdate } from '../schemas';
import { checkWithSchema } from './kit/check';
import { assertConfigured, configure, getClient } from './kit/context';
import { diffFields } from './kit/diff';
import { step, unlessNotFound, type Implementation } from './kit/implementation';
import { nameOf } from './kit/ownership';
import { PageGuardSettingsKind, diffPlan, label as kindLabel } from '../kinds';

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

const SETTINGS = Object.entries(PAGE_GUARD_SETTING_FIELDS) as [PageGuardSettingName, (typeof PAGE_GUARD_SETTING_FIELDS)[PageGuardSettingName]][];
const SETTING_NAMES = SETTINGS.map(([name]) => name);
/** The settings managed only when declared: every one but enabled. */
const OPTIONAL = SETTING_NAMES.filter((name) => name !== 'enabled');

/** Settings in the provider's names, from the service's: the fields the service sent. */
export function settingsFromWire(settings: PageGuardSettingsWire): ZoneSettings {
  return Object.fromEntries(
    SETTINGS.filter(([, wireName]) => settings[wireName] !== undefined).map(([name, wireName]) => [name, settings[wireName]]),
  ) as unknown as ZoneSettings;
}

/** The PUT body for the given settings: only the fields that are set. */
export function settingsToWire(settings: Partial<ZoneSettings>): PageGuardSettingsUpdate {
  return Object.fromEntries(
    SETTINGS.filter(([name]) => settings[name] !== undefined).map(([name, wireName]) => [wireName, settings[name]]),
  );
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

const label = (props: Record<string, unknown>) => kindLabel('PageGuardSettings', props, nameOf(props));
const DIFF = diffPlan(PageGuardSettingsKind);

export const pageGuardSettings: Implementation = {
  configure,

  async check(_olds, news) {
    assertConfigured();
    return checkWithSchema(PageGuardSettingsArgsSchema, news, 'PageGuardSettings');
  },

  async diff(_id, olds, news) {
    // One per zone: another zone is another resource (its create takes that zone over, its delete restores this one).
    return diffFields(olds, news, DIFF);
  },

  async create(raw) {
    const inputs = raw as PageGuardSettingsInputs;
    const client = getClient();
    const found = await step(`${label(inputs)}: reading the current settings`, () =>
      client.pageGuard.get({ zoneId: inputs.zoneId }),
    );
    const previous = settingsFromWire(found);
    // Write only what differs: taking over settings already as declared changes nothing on the service.
    const changes = changedSettings(previous, inputs);
    const current =
      Object.keys(changes).length === 0
        ? { ...previous, updatedAt: found.updated_at }
        : await step(`${label(inputs)}: updating the settings`, async () => {
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

  async read(id, props) {
    const olds = props as PageGuardSettingsOutputs;
    const settings = await step(`${label(olds)}: reading the settings`, () =>
      unlessNotFound(() => getClient().pageGuard.get({ zoneId: olds.zoneId }), undefined),
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

  async update(_id, olds, news) {
    const before = olds as PageGuardSettingsOutputs;
    const desired = news as PageGuardSettingsInputs;
    const changed = changedSettings(before, desired);
    const result = await step(`${label(desired)}: updating the settings`, () =>
      getClient().pageGuard.update({ zoneId: desired.zoneId, ...settingsToWire(changed) }),
    );
    const outs: PageGuardSettingsOutputs = {
      ...managedView(desired.zoneId, { ...desired, ...settingsFromWire(result) }, desired),
      ...(result.updated_at ? { updatedAt: result.updated_at } : {}),
      previous: before.previous,
    };
    return { outs };
  },

  async delete(_id, props) {
    const olds = props as PageGuardSettingsOutputs;
    // Put back what the zone had before this resource took it over; a zone that is gone has nothing to restore.
    await step(`${label(olds)}: restoring the previous settings`, () =>
      unlessNotFound(() => getClient().pageGuard.update({ zoneId: olds.zoneId, ...settingsToWire(olds.previous) }), undefined),
    );
  },
};
