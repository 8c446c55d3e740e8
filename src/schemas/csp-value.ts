// Well-formedness of a CSP policy's `value` (a Content-Security-Policy directive string), after the CSP Level 3
// grammar: directives separated by ";", each a name and source expressions separated by whitespace.

/** Directives whose value is a source list. */
const SOURCE_LIST_DIRECTIVES = new Set([
  'default-src', 'script-src', 'script-src-elem', 'script-src-attr', 'style-src', 'style-src-elem',
  'style-src-attr', 'img-src', 'connect-src', 'font-src', 'object-src', 'media-src', 'frame-src', 'child-src',
  'worker-src', 'manifest-src', 'prefetch-src', 'fenced-frame-src', 'base-uri', 'form-action', 'frame-ancestors',
]);

/** Directives with a value of their own kind (not a source list). */
const OTHER_DIRECTIVES = new Set([
  'sandbox', 'report-uri', 'report-to', 'require-trusted-types-for', 'trusted-types', 'webrtc', 'plugin-types',
  'upgrade-insecure-requests', 'block-all-mixed-content',
]);

/** Directives that take no value at all. */
const VALUELESS_DIRECTIVES = new Set(['upgrade-insecure-requests', 'block-all-mixed-content']);

const KEYWORDS = new Set([
  "'self'", "'none'", "'unsafe-inline'", "'unsafe-eval'", "'strict-dynamic'", "'unsafe-hashes'",
  "'report-sample'", "'wasm-unsafe-eval'", "'unsafe-allow-redirects'", "'inline-speculation-rules'",
]);

const NONCE_OR_HASH = /^'(nonce-[A-Za-z0-9+/_-]+={0,2}|sha(256|384|512)-[A-Za-z0-9+/_-]+={0,2})'$/;
const SCHEME_SOURCE = /^[A-Za-z][A-Za-z0-9+.-]*:$/;
// [scheme "://"] host [":" port] [path]; host is "*", "*." + labels, or labels.
const HOST_SOURCE =
  /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?(?:\*|(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)(?::(?:\d{1,5}|\*))?(?:\/[^\s;,]*)?$/;

function sourceProblem(directive: string, source: string): string | undefined {
  const lower = source.toLowerCase();
  // `self` unquoted is a valid host name to a browser, and never what was meant.
  if (KEYWORDS.has(`'${lower}'`)) return `${directive}: keyword ${source} must be quoted: '${source}'`;
  if (KEYWORDS.has(lower) || NONCE_OR_HASH.test(source) || SCHEME_SOURCE.test(source) || HOST_SOURCE.test(source)) {
    return undefined;
  }
  if (source.startsWith("'")) return `${directive}: unknown keyword ${source}`;
  return `${directive}: ${JSON.stringify(source)} is not a valid source (a host, a scheme like https:, or a quoted keyword)`;
}

/** Problems of a CSP directive string, one readable line each; empty when it is well formed. */
export function cspValueProblems(value: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const directives = value.split(';').map((d) => d.trim()).filter((d) => d !== '');
  if (directives.length === 0) return ['must hold at least one directive, for example "script-src \'self\'"'];
  for (const directive of directives) {
    const [rawName = '', ...sources] = directive.split(/\s+/);
    const name = rawName.toLowerCase();
    if (!/^[a-z0-9-]+$/.test(name)) {
      problems.push(`${JSON.stringify(rawName)} is not a directive name`);
      continue;
    }
    if (!SOURCE_LIST_DIRECTIVES.has(name) && !OTHER_DIRECTIVES.has(name)) {
      problems.push(`unknown directive ${JSON.stringify(rawName)}`);
      continue;
    }
    if (seen.has(name)) problems.push(`${name} appears twice; browsers ignore the second`);
    seen.add(name);
    if (VALUELESS_DIRECTIVES.has(name)) {
      if (sources.length > 0) problems.push(`${name} takes no value`);
      continue;
    }
    if (!SOURCE_LIST_DIRECTIVES.has(name)) {
      if (sources.length === 0 && name !== 'sandbox') problems.push(`${name} needs a value`);
      continue;
    }
    if (sources.length === 0) {
      problems.push(`${name} has no sources; use 'none' to allow nothing`);
      continue;
    }
    if (sources.some((s) => s.toLowerCase() === "'none'") && sources.length > 1) {
      problems.push(`${name}: 'none' cannot be combined with other sources`);
    }
    for (const source of sources) {
      const problem = sourceProblem(name, source);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}
