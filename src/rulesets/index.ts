// The rulesets API's model, below the emulator and the providers: the rules grammar as structured problems, and
// the declared form of the WAF managed rules with its normalization and wire mapping.
export * from './grammar';
export * from './managed-rules';
export * from './phase-rules';
export * from './firewall-conversion';
export * from './evaluate';
