// Insights over the client: detected items with their malicious classification, summaries by host, a CSP built
// from observed scripts, and a zone exported as a Pulumi program. (The WAF migration plan is the providers'
// planWafMigration / readMigrationPlan.)
import '../node-version'; // first: an unsupported Node fails here, saying what to install
export { classify, type Classification } from './classification';
export { listConnections, listCookies, listScripts, type Classified, type ClassifiedQuery, type DetectedQuery, type LoadProgress } from './detected';
export { summarizeByHost, summarizeZone, type HostCount, type HostSummary, type ZoneSummary } from './summary';
export { cspFromObservedScripts, type ExcludedScript, type ExclusionReason, type ObservedCsp, type ObservedCspOptions } from './csp';
export { exportZoneProgram } from './export';
