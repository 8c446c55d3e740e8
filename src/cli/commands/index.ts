// The insight commands of the `zoneguard` bin, beside `emulator`.
import type { Command } from 'commander';
import { processIo, type CliIo } from './io';
import { connectionsCommand } from './connections';
import { cookiesCommand } from './cookies';
import { exportCommand } from './export';
import { firewallUpgradePlanCommand } from './firewall-upgrade-plan';
import { migrationCommand } from './migration-plan';
import { orphansCommand } from './orphans';
import { previewReportCommand } from './preview-report';
import { scriptsCommand } from './scripts';

export { EXIT, processIo, type CliIo, type Output, type RunIo } from './io';
export { runCommand } from './run';
export {
  scriptsCommand,
  connectionsCommand,
  cookiesCommand,
  exportCommand,
  firewallUpgradePlanCommand,
  migrationCommand,
  orphansCommand,
  previewReportCommand,
};

/** Every insight command, for `program.addCommand(...)` in the bin. */
export function insightCommands(io: CliIo = processIo()): Command[] {
  return [
    scriptsCommand(io),
    connectionsCommand(io),
    cookiesCommand(io),
    exportCommand(io),
    firewallUpgradePlanCommand(io),
    migrationCommand(io),
    orphansCommand(io),
    previewReportCommand(io),
  ];
}
