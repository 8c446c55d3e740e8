// The demo stack (`npm run demo`): a zone's page security, two CSP policies (one built from the scripts the
// service observed), firewall rules, custom rules and a rate limiting rule (their successors), and the migration of
// another zone to the new WAF managed rules.
import * as pulumi from '@pulumi/pulumi';
import { CspPolicy, CustomRule, FirewallRuleWithFilter, PageGuardSettings, RateLimitRule, WafMigration, clientFromStackConfig } from 'pulumi-zoneguard';
import { cspFromObservedScripts } from 'pulumi-zoneguard/insights';

const config = new pulumi.Config();
const bankZoneId = config.require('bankZoneId');
const storeZoneId = config.require('storeZoneId');
// Both optional, for a run that changes one field of each resource (bench/lifecycle.bench.mts sets them): a note
// added to every policy's and rule's description, and whether connection URLs are reported with their path.
const descriptionNote = config.get('descriptionNote');
const described = (text: string) => (descriptionNote ? `${text} (${descriptionNote})` : text);
const useConnectionUrlPath = config.getBoolean('useConnectionUrlPath') ?? true;

// Page security on for the bank, reporting connection URLs with their path.
const settings = new PageGuardSettings('bank-page-security', {
  zoneId: bankZoneId,
  enabled: true,
  useConnectionUrlPath,
});

// Report (not block) any script on the login host that is not on the allow-list the team reviewed.
const loginPolicy = new CspPolicy('bank-login-scripts', {
  zoneId: bankZoneId,
  action: 'log',
  description: described('Login pages: report scripts outside the reviewed list'),
  expression: 'http.host eq "login.acme-bank.example"',
  value: "script-src 'self' https://cdn.acme-bank.example",
});

// An allow-list built from what the service observed on the shop's pages; malicious scripts are left out.
const observed = cspFromObservedScripts({ client: clientFromStackConfig(), zoneId: bankZoneId, hosts: ['shop.acme-bank.example'] });
const shopPolicy = new CspPolicy('bank-shop-observed-scripts', {
  zoneId: bankZoneId,
  action: 'log',
  description: described('Shop pages: scripts observed by page security, malicious ones excluded'),
  expression: 'http.host eq "shop.acme-bank.example"',
  value: observed.then((csp) => csp.value),
});

const blockScanners = new FirewallRuleWithFilter('bank-block-scanners', {
  zoneId: bankZoneId,
  expression: '(http.user_agent contains "sqlmap") or (http.request.uri.path matches "^/(wp-admin|phpmyadmin)")',
  action: 'block',
  description: described('Vulnerability scanners and probes for software we do not run'),
});

const challengeLogin = new FirewallRuleWithFilter('bank-challenge-risky-logins', {
  zoneId: bankZoneId,
  expression: '(http.host eq "login.acme-bank.example" and cf.threat_score gt 10)',
  action: 'managed_challenge',
  priority: 10,
  description: described('Challenge logins from poor-reputation addresses'),
});

// Custom rules and a rate limiting rule, one rule per resource (docs/custom-rules.md): each is written alone, so rules
// another stack or the dashboard adds to the zone stay as they are. The office's skip runs first: placed after the
// rules it is an exception to, it would skip nothing.
const officeSkip = new CustomRule('bank-office-skips-custom-rules', {
  zoneId: bankZoneId,
  action: 'skip',
  expression: 'ip.src in {192.0.2.0/24}',
  skip: { ruleset: 'current' },
  ref: 'office',
  position: { first: true },
  description: described('The office network skips the custom rules'),
});

const adminBlock = new CustomRule('bank-admin-pages', {
  zoneId: bankZoneId,
  action: 'block',
  expression: 'starts_with(http.request.uri.path, "/admin")',
  response: { statusCode: 403, contentType: 'application/json', content: '{"error":"forbidden"}' },
  ref: 'admin',
  description: described('Admin pages from the office only'),
});

const loginLimit = new RateLimitRule('bank-login-attempts', {
  zoneId: bankZoneId,
  action: 'managed_challenge',
  expression: '(http.host eq "login.acme-bank.example")',
  ratelimit: { characteristics: ['cf.colo.id', 'ip.src'], period: 60, requestsPerPeriod: 20, mitigationTimeout: 0, countingExpression: 'http.response.code eq 401' },
  ref: 'login-attempts',
  description: described('Twenty failed logins a minute per address'),
});

// The store moves to the new WAF managed rules at once (a Pro zone has no validation mode). Protected by default:
// the migration cannot be undone.
const migration = new WafMigration('store-waf-migration', {
  zoneId: storeZoneId,
  mode: 'direct',
  wait: { timeoutSeconds: 60, pollIntervalSeconds: 1 },
});

export const pageSecurityEnabled = settings.enabled;
export const settingsBeforeTakeover = settings.previous;
export const loginPolicyId = loginPolicy.policyId;
export const shopPolicyValue = shopPolicy.value;
export const maliciousScriptsLeftOut = observed.then((csp) => csp.excluded.map((script) => script.url));
export const firewallRuleIds = [blockScanners.ruleId, challengeLogin.ruleId];
export const customRuleIds = [officeSkip.ruleId, adminBlock.ruleId];
export const loginRateLimitId = loginLimit.ruleId;
export const storeMigrationState = migration.migrationState;
export const storeNewWaf = migration.newWafStatus;
export const storeConversion = migration.conversion;
