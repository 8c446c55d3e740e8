import type * as pulumi from '@pulumi/pulumi';
import { registration, ZoneGuardResource } from './kit';

/** Inputs of {@link PageGuardSettings}. */
export interface PageGuardSettingsArgs {
  /** The zone whose page security settings this resource manages (one resource per zone). */
  zoneId: pulumi.Input<string>;
  /** Whether page security is on for the zone. */
  enabled: pulumi.Input<boolean>;
  /** Send reports to the vendor's reporting endpoint. Managed only when set. */
  useVendorReportingEndpoint?: pulumi.Input<boolean>;
  /** Report connection URLs with their path. Managed only when set. */
  useConnectionUrlPath?: pulumi.Input<boolean>;
}

/**
 * The page security settings of a zone (`/zones/{zone_id}/page_guard`). Create takes the zone's settings over and
 * records what they were (`previous`); delete puts those back.
 */
export class PageGuardSettings extends ZoneGuardResource {
  /** Whether page security is on for the zone. */
  declare readonly enabled: pulumi.Output<boolean>;
  /** Whether reports go to the vendor's reporting endpoint; managed only when declared. */
  declare readonly useVendorReportingEndpoint: pulumi.Output<boolean | undefined>;
  /** Whether connection URLs are reported with their path; managed only when declared. */
  declare readonly useConnectionUrlPath: pulumi.Output<boolean | undefined>;
  /** When the service last changed the settings. */
  declare readonly updatedAt: pulumi.Output<string | undefined>;
  /** The settings the zone had before this resource took them over; restored on delete. */
  declare readonly previous: pulumi.Output<{ enabled: boolean; useVendorReportingEndpoint?: boolean; useConnectionUrlPath?: boolean }>;

  /**
   * Declares a PageGuardSettings: `check` validates `args` before any API call, at preview too.
   * @param name The resource's name, unique among the stack's resources of its kind (a rename needs `aliases`).
   * @param args Its inputs ({@link PageGuardSettingsArgs}).
   * @param opts Pulumi's resource options (`dependsOn`, `protect`, `aliases`, `retainOnDelete`, ...).
   */
  constructor(name: string, args: PageGuardSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    super(...registration('PageGuardSettings', name, args, opts));
  }
}
