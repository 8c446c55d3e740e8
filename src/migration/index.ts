// The WAF migration's own logic, apart from the Pulumi provider: the adjustments, the limits, the conversion notes,
// the steps from one mode to the next (all pure), and the read-only plan. The provider, the resource class and the
// CLI import it from here.
export * from './adjustments';
export * from './limits';
export * from './notes';
export * from './steps';
export * from './plan';
export * from './refs';
