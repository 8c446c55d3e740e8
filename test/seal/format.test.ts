import { SEAL_FORMAT, canonicalJson, readSeal, sealDigest, sealText, type SealBody } from '../../src/seal/format';

// The seal's file: its canonical text, its digest, and the one-line refusal of anything else (docs/sealed-previews.md).
const body: SealBody = {
  zoneguardSeal: SEAL_FORMAT,
  project: 'shop',
  stack: 'ci',
  ownerId: '0123456789abcdef',
  madeAt: '2026-11-27T16:00:00.000Z',
  resources: [
    {
      kind: 'CspPolicy',
      name: 'checkout',
      owner: 'zg:0123456789',
      op: 'update',
      zoneId: 'z1',
      id: 'p1',
      state: { description: 'shop', enabled: true },
      live: { description: 'shop', enabled: true },
      landing: null,
    },
  ],
};

test('the canonical JSON sorts every object key, so one content has one text and one digest', () => {
  expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
  const reordered = { ...body, resources: [{ ...body.resources[0]!, live: { enabled: true, description: 'shop' } }] };
  expect(sealDigest(reordered)).toBe(sealDigest(body));
  expect(sealDigest(body)).toMatch(/^sha256:[0-9a-f]{64}$/);
});

test('a seal as written reads back whole', () => {
  expect(readSeal(sealText(body), 'seal.json')).toEqual({ seal: { ...body, digest: sealDigest(body) } });
});

describe.each([
  ['an edited value', (text: string) => text.replace('"enabled": true', '"enabled": false'), 'was changed after the preview wrote it (its content does not match its digest)'],
  ['a resource taken out', (text: string) => JSON.stringify({ ...JSON.parse(text), resources: [] }), 'was changed after the preview wrote it (its content does not match its digest)'],
  ['a truncated file', (text: string) => text.slice(0, 40), 'is not JSON'],
  ['another format', (text: string) => text.replace(`"zoneguardSeal": ${SEAL_FORMAT}`, '"zoneguardSeal": 2'), 'is not a seal of this version of zoneguard (zoneguardSeal: Invalid input: expected 1)'],
  ['no digest', (text: string) => JSON.stringify({ ...JSON.parse(text), digest: undefined }), 'is not a seal of this version of zoneguard (digest: Invalid input: expected string, received undefined)'],
])('%s is refused in one line naming the file', (_case, change, reason) => {
  test('refusal', () => {
    const read = readSeal(change(sealText(body)), 'out/seal.json');
    expect(read).toEqual({ refusal: `zoneguard: the seal out/seal.json ${reason}; run the pull request's preview again (ci.sh pr) and use the seal it writes` });
  });
});
