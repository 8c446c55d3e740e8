import * as fs from 'node:fs';
import type { EngineEvent, PulumiFn, Stack } from '@pulumi/pulumi/automation';
import { CspPolicy } from '../../src/resources/csp-policy';
import { FirewallRuleWithFilter } from '../../src/resources/firewall-rule-with-filter';
import { PageGuardSettings } from '../../src/resources/page-guard-settings';
import type { StartedEmulator, ZoneInventory } from '../../src/emulator';
import { splitMarked } from '../../src/schemas/owner-marker';

// What the resilience tests share: a fresh zone per test (so the emulator's inventory of it is exactly what the
// stack made), the stack they declare, the convergence check, the engine's error diagnostics, and the process tree
// of this jest worker (the Pulumi CLI and the dynamic provider host it starts).

let made = 0;

/**
 * A name no earlier test used: each test starts from a new zone and a new stack, not from what another one left.
 */
export function unique(label: string): string {
  made += 1;
  return `${label}-${Date.now().toString(36)}-${made}`;
}

/** A new enterprise zone, empty, page security off: the inventory of it is exactly what a test's stack made. */
export async function freshZone(emulator: StartedEmulator, label: string): Promise<string> {
  const zone = await emulator.admin.seedZone({
    name: `${unique(label)}.resilience.example`,
    plan: 'enterprise',
    hosts: [`${label}.resilience.example`, `shop.${label}.resilience.example`],
    pageGuard: { enabled: false, use_vendor_reporting_endpoint: false, use_connection_url_path: false },
  });
  return zone.id;
}

/** What a test declares in its zone: the page security settings, CSP policies and firewall rules. */
export interface Declared {
  settings?: { enabled: boolean; useConnectionUrlPath?: boolean };
  policies: Array<{ name: string; description: string; expression: string; value: string; action: 'log' | 'allow'; adoptPolicyId?: string }>;
  rules: Array<{ name: string; description: string; expression: string; action: 'block' | 'managed_challenge' | 'log'; adoptRuleId?: string }>;
}

/** Three kinds, six resources: the stack most resilience tests put under faults. */
export function fleet(label: string): Declared {
  return {
    settings: { enabled: true, useConnectionUrlPath: true },
    policies: [
      { name: 'login', description: `${label} login`, expression: `http.host eq "login.${label}.example"`, value: "script-src 'self'", action: 'log' },
      { name: 'shop', description: `${label} shop`, expression: `http.host eq "shop.${label}.example"`, value: "script-src 'self' https://js.stripe.com", action: 'allow' },
    ],
    rules: [
      { name: 'scanners', description: `${label} scanners`, expression: `(http.user_agent contains "sqlmap-${label}")`, action: 'block' },
      { name: 'admin', description: `${label} admin`, expression: `(http.request.uri.path eq "/${label}/admin")`, action: 'managed_challenge' },
      { name: 'bots', description: `${label} bots`, expression: `(cf.threat_score gt 40 and http.host eq "${label}.example")`, action: 'log' },
    ],
  };
}

/** The program declaring `declared()` in `zoneId`, read on every run so a test can change it between runs. */
export function programOf(zoneId: string, declared: () => Declared): PulumiFn {
  return async () => {
    const want = declared();
    const ids: Record<string, unknown> = {};
    if (want.settings) new PageGuardSettings('settings', { zoneId, ...want.settings });
    for (const { name, ...args } of want.policies) ids[`policy-${name}`] = new CspPolicy(name, { zoneId, ...args }).policyId;
    for (const { name, ...args } of want.rules) ids[`rule-${name}`] = new FirewallRuleWithFilter(name, { zoneId, ...args }).ruleId;
    return ids;
  };
}

/**
 * Whether the zone holds exactly what is declared: each policy once, each rule once with its own filter, no filter
 * without a rule (an orphan), no other object, and the settings as declared. Answers the problems, empty when
 * converged, so a failing test prints what is wrong.
 */
export function convergenceProblems(inventory: ZoneInventory, declared: Declared): string[] {
  const problems: string[] = [];
  for (const policy of declared.policies) {
    // The description on the zone ends in the resource's owner marker (docs/ownership.md): the declared text is before it.
    const found = inventory.cspPolicies.filter((p) => splitMarked(p.description).own === policy.description);
    if (found.length !== 1) problems.push(`policy "${policy.description}": ${found.length} on the zone (${found.map((p) => p.id).join(', ')})`);
    else if (found[0]!.expression !== policy.expression || found[0]!.value !== policy.value || found[0]!.action !== policy.action) {
      problems.push(`policy "${policy.description}" differs: ${JSON.stringify(found[0])}`);
    }
  }
  if (inventory.cspPolicies.length !== declared.policies.length) {
    problems.push(`${inventory.cspPolicies.length} policies on the zone, ${declared.policies.length} declared: ${inventory.cspPolicies.map((p) => p.description).join(' | ')}`);
  }
  for (const rule of declared.rules) {
    const found = inventory.firewallRules.filter((r) => r.filter.expression === rule.expression);
    if (found.length !== 1) problems.push(`rule ${rule.expression}: ${found.length} on the zone (${found.map((r) => r.id).join(', ')})`);
    else if (found[0]!.action !== rule.action || found[0]!.description !== rule.description) problems.push(`rule ${rule.expression} differs: ${JSON.stringify(found[0])}`);
  }
  if (inventory.firewallRules.length !== declared.rules.length) {
    problems.push(`${inventory.firewallRules.length} firewall rules on the zone, ${declared.rules.length} declared`);
  }
  const used = new Set(inventory.firewallRules.map((rule) => rule.filter.id));
  const orphans = inventory.filters.filter((filter) => !used.has(filter.id));
  if (orphans.length > 0) problems.push(`orphan filters: ${orphans.map((f) => `${f.id} ${JSON.stringify(f.expression)}`).join(', ')}`);
  const expressions = inventory.filters.map((filter) => filter.expression);
  const duplicated = expressions.filter((expression, i) => expressions.indexOf(expression) !== i);
  if (duplicated.length > 0) problems.push(`filters with the same expression: ${duplicated.join(', ')}`);
  if (declared.settings) {
    const settings = inventory.pageGuard;
    if (settings?.enabled !== declared.settings.enabled) problems.push(`page security enabled is ${String(settings?.enabled)}`);
    if (declared.settings.useConnectionUrlPath !== undefined && settings?.use_connection_url_path !== declared.settings.useConnectionUrlPath) {
      problems.push(`use_connection_url_path is ${String(settings?.use_connection_url_path)}`);
    }
  }
  return problems;
}

/** What one engine command produced: whether it failed, its output, and the error diagnostics per resource. */
export interface EngineRun {
  ok: boolean;
  /** The error thrown by the Automation API (the CLI's stderr and stdout), when it failed. */
  error?: string;
  output: string;
  /** Error diagnostics of resources (not the stack's summary line). */
  resourceErrors: Array<{ urn: string; message: string }>;
  /** Wall time of the command. */
  ms: number;
  /** How long each resource's operation took, from the engine's pre-event to its outcome, by resource name. */
  opMs: Record<string, number>;
}

/** Runs an engine command, capturing instead of throwing: a faulted run may fail, and the test judges how. */
export async function engine(command: (opts: { color: 'never'; onOutput: (text: string) => void; onEvent: (event: EngineEvent) => void }) => Promise<unknown>): Promise<EngineRun> {
  let output = '';
  const resourceErrors: EngineRun['resourceErrors'] = [];
  const started: Record<string, number> = {};
  const opMs: Record<string, number> = {};
  const nameOf = (urn: string) => urn.split('::').pop() ?? urn;
  const onEvent = (event: EngineEvent) => {
    const pre = event.resourcePreEvent?.metadata;
    if (pre) started[nameOf(pre.urn)] = Date.now();
    const done = event.resOutputsEvent?.metadata ?? event.resOpFailedEvent?.metadata;
    if (done && started[nameOf(done.urn)] !== undefined) opMs[nameOf(done.urn)] = Date.now() - started[nameOf(done.urn)]!;
    const diagnostic = event.diagnosticEvent;
    if (diagnostic?.severity === 'error' && diagnostic.urn && !diagnostic.urn.includes('pulumi:pulumi:Stack')) {
      resourceErrors.push({ urn: diagnostic.urn, message: diagnostic.message.trim() });
    }
  };
  const began = Date.now();
  try {
    await command({ color: 'never', onOutput: (text) => (output += text), onEvent });
    return { ok: true, output, resourceErrors, ms: Date.now() - began, opMs };
  } catch (error) {
    return { ok: false, error: (error as Error).message, output, resourceErrors, ms: Date.now() - began, opMs };
  }
}

/** Runs `up` and throws with the engine's output when it fails: for the steps that must succeed. */
export async function upOrThrow(stack: Stack): Promise<string> {
  const run = await engine((opts) => stack.up(opts));
  if (!run.ok) throw new Error(`pulumi up failed:\n${run.resourceErrors.map((e) => e.message).join('\n')}\n${run.error ?? ''}`);
  return run.output;
}

/** One process of the tree under this jest worker. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The command line, arguments joined by spaces. */
  cmd: string;
}

function allProcesses(): ProcessInfo[] {
  const processes: ProcessInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name in parentheses may hold spaces: the fields after the last ')' are state, ppid, ...
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      processes.push({ pid: Number(entry), ppid, cmd });
    } catch {
      // The process ended while we looked.
    }
  }
  return processes;
}

/** Every process started, directly or not, by this one. */
export function descendants(root = process.pid): ProcessInfo[] {
  const all = allProcesses();
  const found: ProcessInfo[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const child of all.filter((p) => p.ppid === parent)) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** The dynamic provider hosts (`node .../@pulumi/pulumi/cmd/dynamic-provider ...`) under this process. */
export function providerHosts(): ProcessInfo[] {
  return descendants().filter((p) => /\/cmd\/dynamic-provider(\/index\.js)?\b/.test(p.cmd));
}

/** The Pulumi CLI processes (`pulumi up ...`) under this process. */
export function pulumiCli(): ProcessInfo[] {
  return descendants().filter((p) => /^(\S*\/)?pulumi (up|preview|refresh|destroy)\b/.test(p.cmd));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // A zombie (state Z) has ended; only its exit status waits to be collected.
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * The processes a test of this file killed: after the file's tests, any still alive is ended (this process started
 * it), then the file's sandbox closed.
 */
export function useKilledProcesses(sandbox: () => { close(): Promise<void> } | undefined): Set<number> {
  const killed = new Set<number>();
  afterAll(async () => {
    for (const pid of killed) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    await sandbox()?.close();
  });
  return killed;
}

/** Polls `probe` until it answers a value, or fails after `timeoutMs` saying what it waited for. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
