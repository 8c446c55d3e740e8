// pulumi-zoneguard: Pulumi resources for a zone's page security, CSP policies, firewall rules and the WAF
// managed rules migration, the typed API client they use, and the shared wire schemas.
export { PageGuardSettings, type PageGuardSettingsArgs } from './resources/page-guard-settings';
export { CspPolicy, type CspPolicyArgs } from './resources/csp-policy';
export * from './client';
export * as schemas from './schemas';
export { DEFAULT_BASE_URL, SETTING_SOURCES, MissingCredentialsError } from './providers/kit/settings';
