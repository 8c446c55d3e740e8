import { answers } from '../support/table';
import fc from 'fast-check';
import { cspFromObservedScripts, type LoadProgress } from '../../src/insights';
import { buildScriptSrc, scriptOrigin } from '../../src/insights/csp';
import { cspValueProblems, type Script } from '../../src/schemas';
import { BIG_ZONE, EMPTY_ZONE, shuffled, useInsightEmulator } from './helpers';

const script = (url: string, host: string, extra: Partial<Script> = {}): Script => ({
  id: '0'.repeat(32),
  url,
  host,
  status: 'active',
  ...extra,
});

describe('scriptOrigin', () => {
  answers(scriptOrigin, '%s → %s', [
    ['https://cdn.example.com/a/b.js?x=1#y', 'https://cdn.example.com'],
    ['https://CDN.Example.com:443/a.js', 'https://cdn.example.com'],
    ['https://cdn.example.com:8443/a.js', 'https://cdn.example.com:8443'],
    ['http://legacy.example.com/a.js', 'http://legacy.example.com'],
    ['data:text/javascript,alert(1)', undefined],
    ['blob:https://example.com/123', undefined],
    ['/relative/path.js', undefined],
  ]);
});

describe('buildScriptSrc (pure)', () => {
  const scripts = [
    script('https://www.shop.example/app.js', 'www.shop.example'),
    script('https://js.stripe.com/v3/', 'www.shop.example', { js_integrity_score: 90 }),
    script('https://cdn.jsdelivr.net/npm/jquery.js', 'shop.example', { js_integrity_score: 80 }),
    script('https://www.shop.example/shared.js', 'shop.example'),
    script('https://js.stripe.com/v3/elements.js', 'shop.example'),
    script('https://polyfill.io/v3/polyfill.min.js', 'www.shop.example', {
      js_integrity_score: 12,
      domain_reported_malicious: true,
      malicious_domain_categories: ['Malware'],
    }),
    script('https://cdn.jsdelivr.net/npm/evil.js', 'shop.example', {
      js_integrity_score: 90,
      url_reported_malicious: true,
      malicious_url_categories: ['Cryptomining'],
    }),
    script('https://www.shop.example/injected.js', 'www.shop.example', { js_integrity_score: 20 }),
    script('data:text/javascript,1', 'shop.example'),
  ];

  test("'self' first, then the sorted origins; the malicious ones beside it", () => {
    const csp = buildScriptSrc(scripts);
    expect(csp.value).toBe("script-src 'self' https://cdn.jsdelivr.net https://js.stripe.com https://www.shop.example");
    expect(csp.origins).toEqual(['https://cdn.jsdelivr.net', 'https://js.stripe.com', 'https://www.shop.example']);
    expect(csp.scriptsConsidered).toBe(9);
    expect(csp.excluded).toEqual([
      { url: 'data:text/javascript,1', reasons: ['invalid-url'], categories: [], hosts: ['shop.example'], originAllowed: false },
      {
        url: 'https://cdn.jsdelivr.net/npm/evil.js',
        reasons: ['url'],
        categories: ['Cryptomining'],
        hosts: ['shop.example'],
        // jquery comes from the same origin: the origin-level value cannot keep this one out.
        originAllowed: true,
      },
      { url: 'https://polyfill.io/v3/polyfill.min.js', reasons: ['score', 'domain'], categories: ['Malware'], hosts: ['www.shop.example'], originAllowed: false },
      // Served from the host it was detected on: 'self' allows it.
      { url: 'https://www.shop.example/injected.js', reasons: ['score'], categories: [], hosts: ['www.shop.example'], originAllowed: true },
    ]);
    expect(cspValueProblems(csp.value)).toEqual([]);
  });

  test("a script served from the host it was seen on needs only 'self'; from a sibling host its origin", () => {
    expect(buildScriptSrc([script('https://a.example/x.js', 'a.example')]).value).toBe("script-src 'self'");
    expect(buildScriptSrc([script('https://a.example/x.js', 'b.example')]).value).toBe("script-src 'self' https://a.example");
  });

  test('no scripts at all still gives a well-formed value', () => {
    const csp = buildScriptSrc([]);
    expect(csp).toEqual({ value: "script-src 'self'", origins: [], excluded: [], scriptsConsidered: 0 });
    expect(cspValueProblems(csp.value)).toEqual([]);
  });

  test('script-src-elem on request', () => {
    expect(buildScriptSrc([script('https://a.example/x.js', 'b.example')], { directive: 'script-src-elem' }).value).toBe(
      "script-src-elem 'self' https://a.example",
    );
  });

  test('the same malicious URL on several hosts is one exclusion naming every host', () => {
    const bad = { js_integrity_score: 1 };
    const csp = buildScriptSrc([script('https://x.example/a.js', 'b.example', bad), script('https://x.example/a.js', 'a.example', bad)]);
    expect(csp.excluded).toEqual([{ url: 'https://x.example/a.js', reasons: ['score'], categories: [], hosts: ['a.example', 'b.example'], originAllowed: false }]);
  });

  test('deterministic: every order of the same observations gives the same result', () => {
    const expected = buildScriptSrc(scripts);
    for (let seed = 1; seed <= 50; seed += 1) expect(buildScriptSrc(shuffled(scripts, seed))).toEqual(expected);
  });

  test('property: the value is well formed, sorted, duplicate-free, and order-independent', () => {
    const host = fc.constantFrom('a.example', 'b.example', 'cdn.c.example', 'D.example');
    const arbitraryScript = fc.record({
      url: fc.tuple(fc.constantFrom('https', 'http'), host, fc.constantFrom('', ':8443'), fc.constantFrom('/x.js', '/y/z.js')).map(
        ([scheme, h, port, path]) => `${scheme}://${h}${port}${path}`,
      ),
      host,
      score: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
      domain: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(arbitraryScript, { maxLength: 30 }), fc.integer({ min: 1, max: 1000 }), (items, seed) => {
        const list = items.map((i) => script(i.url, i.host, { js_integrity_score: i.score, domain_reported_malicious: i.domain }));
        const csp = buildScriptSrc(list);
        expect(cspValueProblems(csp.value)).toEqual([]);
        expect(csp.value.startsWith("script-src 'self'")).toBe(true);
        expect(csp.origins).toEqual([...new Set(csp.origins)].sort());
        expect(buildScriptSrc(shuffled(list, seed))).toEqual(csp);
        const malicious = list.filter((s) => (s.js_integrity_score ?? 100) < 50 || s.domain_reported_malicious);
        expect(new Set(csp.excluded.map((e) => e.url))).toEqual(new Set(malicious.map((s) => s.url)));
      }),
    );
  });
});

describe('cspFromObservedScripts (emulator)', () => {
  const h = useInsightEmulator();

  test("the big zone's active scripts: three vendor origins, the 22 malicious ones beside", async () => {
    const progress: LoadProgress[] = [];
    const csp = await cspFromObservedScripts({ client: h.client, zoneId: BIG_ZONE, onProgress: (p) => progress.push(p) });
    expect(csp.value).toBe("script-src 'self' https://cdn.vendor-a.example https://js.vendor-b.example https://static.vendor-c.example:8443");
    expect(csp.scriptsConsidered).toBe(231);
    expect(csp.excluded).toHaveLength(22);
    expect(csp.excluded.every((e) => e.reasons.length > 0 && !e.reasons.includes('invalid-url'))).toBe(true);
    // Scripts reported by domain or URL come from their own bad origin, which stays out of the value.
    const reported = csp.excluded.filter((e) => e.reasons.includes('domain') || e.reasons.includes('url'));
    // 5 by domain, 5 by URL, and script 7 with both (and a low score).
    expect(reported).toHaveLength(11);
    expect(reported.every((e) => !e.originAllowed && new URL(e.url).hostname.endsWith('.evil.example'))).toBe(true);
    expect(csp.value).not.toContain('evil.example');
    expect(progress.at(-1)).toMatchObject({ kind: 'scripts', loaded: 231, totalCount: 231 });
    expect(cspValueProblems(csp.value)).toEqual([]);
  });

  test('twice in a row: the same result', async () => {
    const a = await cspFromObservedScripts({ client: h.client, zoneId: BIG_ZONE });
    const b = await cspFromObservedScripts({ client: h.client, zoneId: BIG_ZONE });
    expect(b).toEqual(a);
  });

  test('asks for active scripts only, or active and infrequent; never inactive', async () => {
    await h.emulator.admin.clearRequests();
    const active = await cspFromObservedScripts({ client: h.client, zoneId: BIG_ZONE });
    const withInfrequent = await cspFromObservedScripts({ client: h.client, zoneId: BIG_ZONE, includeInfrequent: true });
    const statuses = (await h.emulator.admin.requests()).map((r) => r.query.status);
    expect(new Set(statuses)).toEqual(new Set(['active', 'active,infrequent']));
    expect(withInfrequent.scriptsConsidered).toBe(243);
    // The infrequent script served from a sibling host brings that host's origin.
    expect(withInfrequent.origins).toEqual([...active.origins, 'https://static.example.com'].sort());
  });

  test('hosts narrows the scripts considered', async () => {
    const csp = await cspFromObservedScripts({ client: h.client, zoneId: BIG_ZONE, hosts: 'shop.example.com' });
    // Every script seen on shop.example.com is first party (i % 3 === 0): 'self' alone.
    expect(csp.value).toBe("script-src 'self'");
    expect(csp.scriptsConsidered).toBe(78);
    expect(csp.excluded.every((e) => e.hosts.every((host) => host === 'shop.example.com'))).toBe(true);
  });

  test('the demo enterprise zone: vendor origins allowed, the demo\'s malicious scripts excluded', async () => {
    const csp = await cspFromObservedScripts({ client: h.client, zoneId: h.demoZone('enterprise') });
    expect(cspValueProblems(csp.value)).toEqual([]);
    expect(csp.value).toContain('https://js.stripe.com');
    const excludedUrls = csp.excluded.map((e) => e.url);
    expect(excludedUrls).toEqual([...excludedUrls].sort());
    for (const e of csp.excluded) expect(csp.value).not.toContain(new URL(e.url).origin + ' ');
    expect(csp.excluded.length).toBeGreaterThan(0);
  });

  test('an empty zone', async () => {
    expect(await cspFromObservedScripts({ client: h.client, zoneId: EMPTY_ZONE })).toEqual({
      value: "script-src 'self'",
      origins: [],
      excluded: [],
      scriptsConsidered: 0,
    });
  });
});
