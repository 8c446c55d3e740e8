import { request } from 'node:http';
import { failure, useEmulator } from './helpers';

const h = useEmulator();

/** A request as a raw HTTP client sends it (fetch would refuse to send some of these). */
function raw(url: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    req.end();
  });
}

const MALFORMED = 'Could not route to that URI: an identifier is malformed (bad percent-encoding, or longer than 100 characters)';

describe("HTTP-level errors answer the service's envelope, never fastify's or Node's body, and never echo the URL", () => {
  const auth = () => ({ authorization: `Bearer ${h.emulator.credentials.apiToken}` });

  test.each([
    ['a malformed percent-encoding in the path', (zone: string) => `/zones/${zone}/page_guard/policies/%E0%A4%A`],
    ['an object id over 100 characters', (zone: string) => `/zones/${zone}/page_guard/policies/${'a'.repeat(120)}`],
    ['a zone id over 100 characters', () => `/zones/${'a'.repeat(120)}/page_guard`],
  ])('%s: 400 code 7003', async (_name, path) => {
    const answer = await raw(`${h.emulator.baseUrl}${path(h.zoneOf('pro'))}`, auth());
    expect(answer).toEqual({ status: 400, body: failure([7003, MALFORMED]) });
  });

  test('headers over the limit: 431 in the envelope', async () => {
    const answer = await raw(`${h.emulator.baseUrl}/zones/${h.zoneOf('pro')}/page_guard`, { ...auth(), 'x-padding': 'x'.repeat(20_000) });
    expect(answer).toEqual({ status: 431, body: failure([1001, 'Request headers are larger than the service accepts']) });
  });

  test('a malformed escape in the query is kept as text, and the request is answered', async () => {
    const answer = await raw(`${h.emulator.baseUrl}/zones/${h.zoneOf('pro')}/page_guard/scripts?hosts=%zz`, auth());
    expect(answer.status).toBe(200);
    expect((answer.body as { result: unknown[] }).result).toEqual([]);
  });
});
