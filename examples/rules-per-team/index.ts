// Two teams, two stacks, one zone: each team owns its own custom rules and rate limiting rules in the zone's phases,
// beside each other and beside rules made in the dashboard (docs/custom-rules.md). One program, run as two stacks:
//   pulumi stack init security && pulumi config set zoneId <zone> && pulumi config set team security && pulumi up
//   pulumi stack init api && pulumi config set zoneId <zone> && pulumi config set team api && pulumi up
// Each rule is written alone (a POST, a PATCH, a DELETE of that rule), never the whole entry point, and carries its
// stack's owner marker in its ref: neither stack changes or deletes the other's rules, nor one made by hand.
// The api team's rule runs after the security team's admin block, named by its ref: run the security stack first.
import * as pulumi from '@pulumi/pulumi';
import { CustomRule, RateLimitRule } from 'pulumi-zoneguard';

const config = new pulumi.Config();
const zoneId = config.require('zoneId');
const team = config.require('team');
const officeNetwork = config.get('officeNetwork') ?? '192.0.2.0/24';

const rules: Record<string, pulumi.Output<string>> = {};

if (team === 'security') {
  // The office skips the rest of the custom rules, so it runs first: a skip placed last would skip nothing.
  const office = new CustomRule('office-skip', {
    zoneId,
    action: 'skip',
    expression: `ip.src in {${officeNetwork}}`,
    skip: { ruleset: 'current' },
    description: 'The office network skips the custom rules',
    ref: 'office',
    position: { first: true },
  });
  const admin = new CustomRule('admin-block', {
    zoneId,
    action: 'block',
    expression: 'starts_with(http.request.uri.path, "/admin")',
    response: { statusCode: 403, content: '{"error":"forbidden"}', contentType: 'application/json' },
    description: 'Admin pages from the office only',
    ref: 'admin',
    position: { after: office.ruleId },
  });
  rules.office = office.ruleId;
  rules.admin = admin.ruleId;
} else if (team === 'api') {
  const bots = new CustomRule('api-bots', {
    zoneId,
    action: 'managed_challenge',
    expression: 'starts_with(http.request.uri.path, "/api") and not cf.client.bot',
    description: 'Challenge unverified automation on the API',
    ref: 'api-bots',
    // Another stack's rule, by the ref its program declared (its owner marker left out).
    position: { after: 'admin' },
  });
  const login = new RateLimitRule('api-login', {
    zoneId,
    action: 'block',
    expression: '(http.request.uri.path eq "/api/login")',
    ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 10, mitigationTimeout: 600, countingExpression: 'http.response.code eq 401' },
    description: 'Ten failed logins a minute per address',
    ref: 'api-login',
  });
  rules.bots = bots.ruleId;
  rules.login = login.ruleId;
} else {
  throw new Error(`rules-per-team: team must be security or api, not ${JSON.stringify(team)}`);
}

/** The service's id of each rule this stack owns. */
export const ruleIds = rules;
