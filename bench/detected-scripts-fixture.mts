// The zone of the detected-scripts benches (bench/detected-scripts.bench.mts, bench/list-walk-parts.mts): N detected
// scripts with every analysis field, written to a seed file and served by `zoneguard emulator --seed FILE` in a child
// process (lib.startEmulatorProcess), so the measuring process holds only what the lister holds. A seed file, not the admin API: 10,000 scripts
// are about 6 MB of JSON, past the admin API's 1 MiB body limit.
import * as fs from 'node:fs';

export const ZONE_ID = '5c1e0000000000000000000000010000';
const HOSTS = ['www.big-shop.example', 'shop.big-shop.example', 'checkout.big-shop.example', 'blog.big-shop.example'];

const hex = (seed: number, length: number) => {
  let text = '';
  let x = seed * 2654435761;
  while (text.length < length) {
    x = (x ^ (x >>> 13)) * 1274126177;
    text += (x >>> 0).toString(16).padStart(8, '0');
  }
  return text.slice(0, length);
};
const at = (hours: number) => new Date(Date.UTC(2026, 0, 1) + hours * 3_600_000).toISOString();

/**
 * Writes the seed of one enterprise zone with `count` scripts to `file` and returns its size in bytes. The scripts
 * are built here and dropped once written: the measuring process does not keep them.
 */
export function writeSeed(file: string, count: number): number {
  const scripts = Array.from({ length: count }, (_, i) => {
    const host = HOSTS[i % HOSTS.length]!;
    const thirdParty = i % 3 === 0;
    const url = thirdParty
      ? `https://cdn${i % 97}.vendor-${i % 31}.example/lib/${hex(i, 8)}/widget.min.js`
      : `https://${host}/assets/js/chunk-${hex(i, 12)}.js`;
    return {
      url,
      host,
      added_at: at(i),
      first_seen_at: at(i),
      last_seen_at: at(i + 500),
      first_page_url: `https://${host}/products/${i % 500}`,
      status: 'active',
      url_contains_cdn_cgi_path: false,
      domain_reported_malicious: false,
      url_reported_malicious: false,
      hash: hex(i + 1, 64),
      js_integrity_score: 60 + (i % 40),
      obfuscation_score: 70 + (i % 29),
      dataflow_score: 65 + (i % 34),
      fetched_at: at(i + 150),
      page_urls: [`https://${host}/products/${i % 500}`],
    };
  });
  fs.writeFileSync(file, JSON.stringify({ zones: [{ id: ZONE_ID, name: 'big-shop.example', plan: 'enterprise', hosts: HOSTS, scripts }] }));
  return fs.statSync(file).size;
}
