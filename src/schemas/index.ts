// The wire shapes of the service: one zod schema per object, shared by the client, the providers and the emulator.
import '../node-version'; // first: an unsupported Node fails here, saying what to install
export * from './common';
export * from './detected';
export * from './page-guard';
export * from './scripts';
export * from './connections';
export * from './cookies';
export * from './csp-policy';
export * from './filters';
export * from './firewall-rules';
export * from './waf-migration';
export * from './rulesets';
export * from './waf-overrides';
export * from './csp-value';
export * from './service';
export * from './text';
export * from './messages';
