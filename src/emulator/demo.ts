// The demo seed: one zone per plan, looking like a real site. Data only: its shape and how it is applied are seed.ts.
import type { Connection, Cookie, ScriptDetail } from '../schemas';
import { seededRandom, stableHash, stableId } from './ids';
import { seedTime, type SeedFile, type ZoneSeed } from './seed';
import type { Plan } from './state';

interface ScriptSource {
  url: string;
  /** The host a first-party script was found on (its own); third-party ones spread over the zone's hosts. */
  host?: string;
  /** Below 50 means malicious (docs/service.md#malicious). */
  score?: number;
  domainCategories?: string[];
  urlCategories?: string[];
}

/** Third-party scripts a shop or a bank typically loads, and a few bad ones. */
// Bad ones spread through the list, so that the active scripts include several.
const THIRD_PARTY_SCRIPTS: ScriptSource[] = [
  { url: 'https://www.googletagmanager.com/gtag/js?id=G-7XK2Q9PLMB' },
  { url: 'https://www.google-analytics.com/analytics.js' },
  { url: 'https://polyfill.io/v3/polyfill.min.js?features=default', score: 12, domainCategories: ['Malware'] },
  { url: 'https://connect.facebook.net/en_US/fbevents.js' },
  { url: 'https://js.stripe.com/v3/' },
  { url: 'https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js' },
  { url: 'https://cdn.jsdelivr-analytics.com/metrics.js', score: 8, domainCategories: ['Malware', 'Phishing'], urlCategories: ['Malware'] },
  { url: 'https://cdnjs.cloudflare.com/ajax/libs/lodash.js/4.17.21/lodash.min.js' },
  { url: 'https://static.hotjar.com/c/hotjar-3481920.js?sv=6' },
  { url: 'https://googletagmanager-stats.top/gtm.js', score: 21, urlCategories: ['Cryptomining'] },
  { url: 'https://js.hs-scripts.com/21734655.js' },
  { url: 'https://widget.intercom.io/widget/k7x2m9qa' },
  { url: 'https://cdn.segment.com/analytics.js/v1/Q3vW8pLmN2/analytics.min.js' },
  { url: 'https://cdn.skimlinks-partner.net/js/track.js', score: 37 },
  { url: 'https://www.recaptcha.net/recaptcha/api.js' },
  { url: 'https://challenges.cloudflare.com/turnstile/v0/api.js' },
  { url: 'https://assets.adobedtm.com/launch-EN4f8a2b.min.js', score: 44 },
  { url: 'https://cdn.cookielaw.org/scripttemplates/otSDKStub.js' },
  { url: 'https://snap.licdn.com/li.lms-analytics/insight.min.js' },
  { url: 'https://static.klaviyo.com/onsite/js/klaviyo.js?company_id=XyZ123' },
  { url: 'https://cdn.optimizely.com/js/24510730086.js' },
  { url: 'https://browser.sentry-cdn.com/7.114.0/bundle.tracing.min.js' },
  { url: 'https://unpkg.com/react@18.3.1/umd/react.production.min.js' },
];

/** First-party paths, repeated on each host of the zone. */
const FIRST_PARTY_PATHS = [
  '/assets/js/app.3f9c2d1a.js',
  '/cdn-cgi/challenge-platform/scripts/jsd/main.js',
  '/assets/js/vendor.81be04c7.js',
  '/static/js/runtime.5a7e9b02.js',
  '/checkout/payment.js',
  '/wp-includes/js/jquery/jquery.min.js?ver=3.7.1',
];

const CONNECTION_URLS: ScriptSource[] = [
  { url: 'https://api.stripe.com/v1/tokens' },
  { url: 'https://m.stripe.network/inner.html' },
  { url: 'https://www.google-analytics.com/g/collect' },
  { url: 'https://region1.google-analytics.com/g/collect' },
  { url: 'https://o450123.ingest.sentry.io/api/5012345/envelope/' },
  { url: 'https://api.hubapi.com/livechat-public/v1/message/public' },
  { url: 'https://api-iam.intercom.io/messenger/web/ping' },
  { url: 'https://api.segment.io/v1/t' },
  { url: 'https://vc.hotjar.io/sessions/3481920' },
  { url: 'https://www.facebook.com/tr/' },
  { url: 'https://px.ads.linkedin.com/collect' },
  { url: 'https://logx.optimizely.com/v1/events' },
  { url: 'https://geolocation.onetrust.com/cookieconsentpub/v1/geo/location' },
  { url: 'https://a.klaviyo.com/onsite/track-analytics' },
  { url: 'https://collect.polyfill.io/v1/beacon', domainCategories: ['Malware'], urlCategories: [] },
  { url: 'https://exfil-metrics.top/c', domainCategories: ['Command and Control & Botnet'], urlCategories: ['Malware'] },
];

const COOKIE_NAMES: { name: string; sameSite: string; httpOnly: boolean; maxAge: number | null; thirdPartyHost?: boolean }[] = [
  { name: '__cf_bm', sameSite: 'none', httpOnly: true, maxAge: 1800 },
  { name: 'cf_clearance', sameSite: 'none', httpOnly: true, maxAge: 31536000 },
  { name: 'session_id', sameSite: 'strict', httpOnly: true, maxAge: null },
  { name: 'csrftoken', sameSite: 'strict', httpOnly: false, maxAge: 31449600 },
  { name: '_ga', sameSite: 'lax', httpOnly: false, maxAge: 63072000 },
  { name: '_gid', sameSite: 'lax', httpOnly: false, maxAge: 86400 },
  { name: '_fbp', sameSite: 'lax', httpOnly: false, maxAge: 7776000 },
  { name: '__stripe_mid', sameSite: 'strict', httpOnly: false, maxAge: 31536000 },
  { name: '__stripe_sid', sameSite: 'strict', httpOnly: false, maxAge: 1800 },
  { name: '_hjSessionUser_3481920', sameSite: 'lax', httpOnly: false, maxAge: 31536000 },
  { name: 'OptanonConsent', sameSite: 'lax', httpOnly: false, maxAge: 31536000 },
  { name: 'cart', sameSite: 'strict', httpOnly: true, maxAge: 604800 },
  { name: 'ajs_anonymous_id', sameSite: 'lax', httpOnly: false, maxAge: 31536000 },
  { name: 'intercom-id-k7x2m9qa', sameSite: 'lax', httpOnly: false, maxAge: 23328000 },
  { name: '_gcl_au', sameSite: 'lax', httpOnly: false, maxAge: 7776000 },
  { name: 'XSRF-TOKEN', sameSite: 'strict', httpOnly: false, maxAge: 7200 },
  { name: 'locale', sameSite: 'lax', httpOnly: false, maxAge: 31536000 },
  { name: 'li_sugr', sameSite: 'none', httpOnly: false, maxAge: 7776000 },
];

const PAGES = ['/', '/products', '/checkout', '/account/login', '/blog/spring-sale', '/support'];

/** Plans whose zones get the script analysis (hash, scores, malicious reports); the others see URLs only. */
const ANALYSED_PLANS: Plan[] = ['business', 'enterprise'];

function statusFor(index: number, count: number): string {
  // The last items of each zone are infrequent or inactive, so that the status filter has something to show.
  if (index >= count - 2) return 'inactive';
  if (index >= count - 6) return 'infrequent';
  return 'active';
}

/** What a detected script and connection of the demo both hold: the item `i` of `count`, where and when it was seen. */
function seenFields(
  zoneName: string,
  kind: 'script' | 'connection',
  source: ScriptSource,
  { i, count }: { i: number; count: number },
  seen: { host: string; firstSeen: number; lastSeen: number; firstPageUrl: string },
) {
  return {
    id: stableId(zoneName, kind, source.url, i),
    url: source.url,
    added_at: seedTime(seen.firstSeen, true),
    first_seen_at: seedTime(seen.firstSeen),
    last_seen_at: seedTime(seen.lastSeen),
    host: seen.host,
    first_page_url: seen.firstPageUrl,
    status: statusFor(i, count),
  };
}

function demoScripts(zoneName: string, plan: Plan, hosts: string[], count: number): ScriptDetail[] {
  const random = seededRandom(`scripts:${zoneName}`);
  const sources: ScriptSource[] = [];
  for (const path of FIRST_PARTY_PATHS) for (const host of hosts) sources.push({ url: `https://${host}${path}`, host });
  // Interleave third-party and first-party scripts so each page of the list mixes both.
  const mixed: ScriptSource[] = [];
  for (let i = 0; mixed.length < count && i < Math.max(THIRD_PARTY_SCRIPTS.length, sources.length); i++) {
    const third = THIRD_PARTY_SCRIPTS[i];
    if (third) mixed.push(third);
    const first = sources[i];
    if (first && mixed.length < count) mixed.push(first);
  }
  const analysed = ANALYSED_PLANS.includes(plan);
  return mixed.slice(0, count).map((source, i): ScriptDetail => {
    const host = source.host ?? hosts[i % hosts.length] ?? zoneName;
    const firstSeen = 24 * i + Math.floor(random() * 20);
    const pageUrls = PAGES.slice(0, 1 + Math.floor(random() * PAGES.length)).map((p) => `https://${host}${p}`);
    const script: ScriptDetail = {
      ...seenFields(
        zoneName,
        'script',
        source,
        { i, count },
        { host, firstSeen, lastSeen: firstSeen + 200 + Math.floor(random() * 300), firstPageUrl: pageUrls[0] ?? `https://${host}/` },
      ),
      url_contains_cdn_cgi_path: source.url.includes('/cdn-cgi/'),
      page_urls: pageUrls,
    };
    if (!analysed) return script;
    const score = source.score ?? 60 + Math.floor(random() * 39);
    const hash = stableHash(source.url, 'v2');
    const fetchedAt = seedTime(firstSeen + 150);
    return {
      ...script,
      domain_reported_malicious: source.domainCategories !== undefined,
      url_reported_malicious: source.urlCategories !== undefined,
      ...(source.domainCategories ? { malicious_domain_categories: source.domainCategories } : {}),
      ...(source.urlCategories ? { malicious_url_categories: source.urlCategories } : {}),
      hash,
      js_integrity_score: score,
      obfuscation_score: source.score !== undefined ? 5 + Math.floor(random() * 20) : 70 + Math.floor(random() * 29),
      dataflow_score: source.score !== undefined ? 3 + Math.floor(random() * 30) : 65 + Math.floor(random() * 34),
      fetched_at: fetchedAt,
      versions: [
        { hash, js_integrity_score: score, fetched_at: fetchedAt },
        { hash: stableHash(source.url, 'v1'), js_integrity_score: Math.min(99, score + 3), fetched_at: seedTime(firstSeen + 2) },
      ],
    };
  });
}

function demoConnections(zoneName: string, plan: Plan, hosts: string[], count: number): Connection[] {
  const random = seededRandom(`connections:${zoneName}`);
  const analysed = ANALYSED_PLANS.includes(plan);
  const urls: ScriptSource[] = [...CONNECTION_URLS];
  for (const host of hosts) urls.push({ url: `https://${host}/api/v2/events` }, { url: `https://${host}/graphql` });
  return urls.slice(0, count).map((source, i): Connection => {
    const host = hosts[i % hosts.length] ?? zoneName;
    const firstSeen = 30 * i + Math.floor(random() * 20);
    const connection: Connection = {
      ...seenFields(
        zoneName,
        'connection',
        source,
        { i, count },
        { host, firstSeen, lastSeen: firstSeen + 100 + Math.floor(random() * 400), firstPageUrl: `https://${host}${PAGES[i % PAGES.length] ?? '/'}` },
      ),
      url_contains_cdn_cgi_path: false,
    };
    if (!analysed) return connection;
    return {
      ...connection,
      domain_reported_malicious: source.domainCategories !== undefined,
      malicious_domain_categories: source.domainCategories ?? [],
      url_reported_malicious: (source.urlCategories?.length ?? 0) > 0,
      malicious_url_categories: source.urlCategories ?? [],
    };
  });
}

function demoCookies(zoneName: string, hosts: string[], count: number): Cookie[] {
  const random = seededRandom(`cookies:${zoneName}`);
  return COOKIE_NAMES.slice(0, count).map((cookie, i): Cookie => {
    const host = hosts[i % hosts.length] ?? zoneName;
    const firstSeen = 36 * i + Math.floor(random() * 20);
    const pages = PAGES.slice(0, 1 + (i % 3)).map((p) => `${host}${p}`);
    return {
      id: stableId(zoneName, 'cookie', cookie.name, host),
      type: 'first_party',
      name: cookie.name,
      host,
      domain_attribute: `.${zoneName}`,
      expires_attribute: seedTime(firstSeen + 24 * 365),
      http_only_attribute: cookie.httpOnly,
      max_age_attribute: cookie.maxAge,
      path_attribute: '/',
      same_site_attribute: cookie.sameSite,
      secure_attribute: true,
      first_seen_at: seedTime(firstSeen),
      last_seen_at: seedTime(firstSeen + 300 + Math.floor(random() * 200)),
      first_page_url: pages[0] ?? host,
      page_urls: pages,
      status: statusFor(i, count),
    };
  });
}

function demoZone(name: string, plan: Plan, hostPrefixes: string[], sizes: { scripts: number; connections: number; cookies: number }): ZoneSeed {
  const hosts = [name, ...hostPrefixes.map((p) => `${p}.${name}`)];
  return {
    id: stableId('demo zone', name),
    name,
    plan,
    hosts,
    pageGuard: { enabled: plan !== 'free', use_vendor_reporting_endpoint: true, use_connection_url_path: plan === 'enterprise' },
    scripts: demoScripts(name, plan, hosts, sizes.scripts),
    connections: demoConnections(name, plan, hosts, sizes.connections),
    cookies: demoCookies(name, hosts, sizes.cookies),
  };
}

/** The demo's enterprise zone: the previous WAF at high sensitivity with overrides, CSP policies and firewall rules. */
function demoEnterprise(): ZoneSeed {
  return {
    ...demoZone('acme-bank.example', 'enterprise', ['www', 'login', 'shop', 'api'], { scripts: 46, connections: 24, cookies: 18 }),
    previousWaf: {
      enabled: true,
      sensitivity: 'high',
      actionMode: 'block',
      groupOverrides: { '2f4dd1c4a0b3c7e9d2f1a6b5c4d3e2f1': 'off' },
      ruleOverrides: { '981176': 'simulate', '960024': 'disable' },
    },
    cspPolicies: [
      {
        description: 'Report scripts outside the approved list',
        action: 'log',
        expression: 'http.host eq "www.acme-bank.example"',
        enabled: 'true',
        value: "script-src 'self' https://js.stripe.com https://www.googletagmanager.com",
      },
      {
        description: 'Allow only first-party scripts on the login host',
        action: 'allow',
        expression: 'http.host eq "login.acme-bank.example"',
        enabled: 'false',
        value: "script-src 'self'",
      },
    ],
    firewallRules: [
      {
        expression: '(ip.src in {192.0.2.0/24} and http.request.uri.path contains "/api/internal")',
        action: 'bypass',
        products: ['waf', 'rateLimit'],
        description: 'Office network skips the WAF on internal APIs',
      },
      { expression: '(http.user_agent contains "sqlmap")', action: 'block', description: 'Known scanner' },
      {
        expression: '(ip.geoip.country in {"KP" "IR"} and http.request.uri.path contains "/login")',
        action: 'block',
        priority: 10,
        description: 'Sanctioned countries on login',
      },
      {
        expression: '(http.request.method eq "POST" and http.request.uri.path eq "/api/transfer")',
        action: 'log',
        paused: true,
        description: 'Watch transfers',
      },
    ],
  };
}

/** The built-in demo: one zone per plan, several hosts each, detected items over several pages. */
export function demoSeed(): SeedFile {
  const free = demoZone('acme-blog.example', 'free', ['www'], { scripts: 8, connections: 5, cookies: 4 });
  const pro: ZoneSeed = {
    ...demoZone('acme-store.example', 'pro', ['www', 'shop', 'cdn'], { scripts: 22, connections: 12, cookies: 10 }),
    previousWaf: { enabled: true, sensitivity: 'medium', actionMode: 'simulate' },
    firewallRules: [
      { expression: '(http.request.uri.path contains "/wp-login.php")', action: 'block', description: 'No WordPress here' },
      { expression: '(ip.src in {203.0.113.0/24})', action: 'managed_challenge', description: 'Suspicious range from incident 2026-08' },
    ],
  };
  const business: ZoneSeed = {
    ...demoZone('acme-media.example', 'business', ['www', 'video', 'api', 'static'], { scripts: 30, connections: 18, cookies: 14 }),
    previousWaf: { enabled: true, sensitivity: 'low', actionMode: 'challenge', groupOverrides: { de677e5818985db1285d0e80225f06e5: 'off' } },
    // The URI-based override keeps this zone from migrating until it is deleted.
    wafOverrides: [
      {
        id: stableId('demo zone', 'acme-media.example', 'override'),
        description: 'Relax the core rule set on the video upload API',
        urls: ['api.acme-media.example/upload/*'],
        paused: false,
        priority: 1,
        rules: { '100015': 'disable', '100016': 'simulate' },
      },
    ],
    firewallRules: [
      {
        expression: '(http.request.uri.path eq "/health" and ip.src in {198.51.100.10 198.51.100.11})',
        action: 'bypass',
        products: ['waf'],
        description: 'Monitoring bypasses the WAF',
      },
      { expression: '(cf.threat_score gt 30)', action: 'js_challenge', description: 'Challenge poor reputation' },
    ],
  };
  return { zones: [free, pro, business, demoEnterprise()] };
}
