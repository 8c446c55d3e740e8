import { classify } from '../../src/insights';
import { compareText, describeReason, isBelowScoreThreshold, isMalicious, maliciousReasons, mergedCategories, type Reportable } from '../../src/insights/classification';
import { MALICIOUS_SCORE_THRESHOLD } from '../../src/schemas';

describe('the malicious classification of docs/service.md#malicious', () => {
  test('the threshold is the service\'s 50', () => {
    expect(MALICIOUS_SCORE_THRESHOLD).toBe(50);
  });

  describe.each<[string, Reportable, string[]]>([
    ['score 49 is below the threshold', { js_integrity_score: 49 }, ['score']],
    ['score 50 is not below it', { js_integrity_score: 50 }, []],
    ['score 0', { js_integrity_score: 0 }, ['score']],
    ['no score is no evidence', {}, []],
    ['domain reported', { js_integrity_score: 90, domain_reported_malicious: true }, ['domain']],
    ['URL reported', { js_integrity_score: 90, url_reported_malicious: true }, ['url']],
    ['reports false', { js_integrity_score: 90, domain_reported_malicious: false, url_reported_malicious: false }, []],
    [
      'all three, in the fixed order',
      { url_reported_malicious: true, domain_reported_malicious: true, js_integrity_score: 3 },
      ['score', 'domain', 'url'],
    ],
    ['a connection (no score) reported by domain', { domain_reported_malicious: true, url_reported_malicious: false }, ['domain']],
  ])('%s', (_name, item, reasons) => {
    test('reasons and verdict', () => {
      expect(maliciousReasons(item)).toEqual(reasons);
      expect(isMalicious(item)).toBe(reasons.length > 0);
      expect(classify(item).malicious).toBe(reasons.length > 0);
      expect(classify(item).reasons).toEqual(reasons);
      expect(isBelowScoreThreshold(item)).toBe(reasons.includes('score'));
    });
  });

  test('the two category lists become one, without duplicates, sorted', () => {
    const item = {
      malicious_domain_categories: ['Phishing', 'Malware'],
      malicious_url_categories: ['Malware', 'Cryptomining', ''],
    };
    expect(mergedCategories(item)).toEqual(['Cryptomining', 'Malware', 'Phishing']);
    expect(classify(item)).toEqual({ malicious: false, reasons: [], categories: ['Cryptomining', 'Malware', 'Phishing'] });
  });

  test('absent and empty category lists merge to nothing', () => {
    expect(mergedCategories({})).toEqual([]);
    expect(mergedCategories({ malicious_domain_categories: [], malicious_url_categories: [] })).toEqual([]);
  });

  test('reasons read as phrases', () => {
    const item = { js_integrity_score: 12 };
    expect(describeReason('score', item)).toBe('js_integrity_score 12 < 50');
    expect(describeReason('domain', item)).toBe('domain reported malicious');
    expect(describeReason('url', item)).toBe('URL reported malicious');
  });

  test('text order is code-unit order, independent of the locale', () => {
    expect(['b', 'B', 'a', 'A', 'é'].sort(compareText)).toEqual(['A', 'B', 'a', 'b', 'é']);
    expect(compareText('x', 'x')).toBe(0);
  });
});
