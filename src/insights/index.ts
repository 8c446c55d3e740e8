// Insights over the client: detected items with their malicious classification, summaries by host, a CSP built
// from observed scripts, and a zone exported as a Pulumi program. (The WAF migration plan is the providers'
// planWafMigration / readMigrationPlan.)
import '../node-version'; // first: an unsupported Node fails here, saying what to install
export {
  classify,
  compareText,
  describeReason,
  isBelowScoreThreshold,
  isMalicious,
  maliciousReasons,
  mergedCategories,
  type Classification,
  type MaliciousReason,
  type Reportable,
} from './classification';
export {
  ALL_STATUSES,
  listConnections,
  listCookies,
  listScripts,
  statusFilter,
  walkPages,
  type Classified,
  type ClassifiedQuery,
  type DetectedQuery,
  type LoadProgress,
} from './detected';
export { combineSummaries, summarizeByHost, summarizeZone, type HostCount, type HostSummary, type ZoneSummary } from './summary';
export {
  buildScriptSrc,
  cspFromObservedScripts,
  scriptOrigin,
  type CspBuildOptions,
  type ExcludedScript,
  type ExclusionReason,
  type ObservedCsp,
  type ObservedCspOptions,
} from './csp';
export { exportZoneProgram, readZoneSnapshot, renderPulumiProgram, slug, standaloneFilterIds, tsLiteral, tsString, type RenderOptions, type ZoneSnapshot } from './export';
export {
  PreviewDigestSchema,
  cspSourceChanges,
  renderPreviewReport,
  resourceChanges,
  type PreviewDigest,
  type ResourceChange,
} from './preview-report';
export type { DetectedKind } from '../schemas';
