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
  declare readonly enabled: pulumi.Output<boolean>;
  declare readonly useVendorReportingEndpoint: pulumi.Output<boolean | undefined>;
  declare readonly useConnectionUrlPath: pulumi.Output<boolean | undefined>;
  /** When the service last changed the settings. */
  declare readonly updatedAt: pulumi.Output<string | undefined>;
  /** The settings the zone had before this resource took them over; restored on delete. */
  declare readonly previous: pulumi.Output<{ enabled: boolean; useVendorReportingEndpoint?: boolean; useConnectionUrlPath?: boolean }>;

  constructor(name: string, args: PageGuardSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    super(...registration('PageGuardSettings', name, args, opts));
  }
}
