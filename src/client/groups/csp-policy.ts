import { z } from 'zod';
import { CspPolicySchema, cspEnabledToWire, type CspPolicyWire, type CspPolicyCreate, type CspPolicyUpdate } from '../../schemas';
import { PageIterator, type Page } from '../pagination';
import { zonePath, type Transport } from '../transport';
import type { ZoneArgs } from './common';

type PolicyArgs = ZoneArgs & { policyId: string };

/**
 * `enabled` goes out as text ("true"/"false"), whichever form the caller gave: the service carries text in
 * requests and responses, and whether it accepts a JSON boolean is not known (docs/service.md#policy-enabled).
 */
function policyBodyToWire<T extends { enabled?: boolean | 'true' | 'false' }>(body: T): Omit<T, 'enabled'> & { enabled?: 'true' | 'false' } {
  if (body.enabled === undefined) return body as Omit<T, 'enabled'>;
  return { ...body, enabled: cspEnabledToWire(body.enabled === true || body.enabled === 'true') };
}

/** CSP policies: /zones/{zone_id}/page_guard/policies. `enabled` is read in either form, always as a boolean. */
export class CspPoliciesGroup {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Every policy of the zone (the service answers them in one page). */
  list({ zoneId }: ZoneArgs): PageIterator<CspPolicyWire> {
    return new PageIterator((page) => this.#page(zoneId, page));
  }

  #page(zoneId: string, page: number): Promise<Page<CspPolicyWire>> {
    // No paging is shown for policies: a page number is sent only if the service itself announced more pages.
    return this.#transport.page({
      method: 'GET',
      path: zonePath(zoneId, 'page_guard', 'policies'),
      query: { page: page > 1 ? page : undefined },
      schema: CspPolicySchema,
    });
  }

  /** GET /zones/{zone_id}/page_guard/policies/{policy_id} */
  get({ zoneId, policyId }: PolicyArgs): Promise<CspPolicyWire> {
    return this.#transport.call({ method: 'GET', path: zonePath(zoneId, 'page_guard', 'policies', policyId), schema: CspPolicySchema });
  }

  /** POST /zones/{zone_id}/page_guard/policies: the created policy with its id. */
  create({ zoneId, ...body }: ZoneArgs & CspPolicyCreate): Promise<CspPolicyWire> {
    return this.#transport.call({
      method: 'POST',
      path: zonePath(zoneId, 'page_guard', 'policies'),
      json: policyBodyToWire(body),
      schema: CspPolicySchema,
    });
  }

  /** PUT /zones/{zone_id}/page_guard/policies/{policy_id}: a partial update; the result is the whole policy. */
  update({ zoneId, policyId, ...body }: PolicyArgs & CspPolicyUpdate): Promise<CspPolicyWire> {
    return this.#transport.call({
      method: 'PUT',
      path: zonePath(zoneId, 'page_guard', 'policies', policyId),
      json: policyBodyToWire(body),
      schema: CspPolicySchema,
    });
  }

  /** DELETE /zones/{zone_id}/page_guard/policies/{policy_id}: the service answers 204 with no body (or an envelope). */
  async delete({ zoneId, policyId }: PolicyArgs): Promise<void> {
    await this.#transport.call({
      method: 'DELETE',
      path: zonePath(zoneId, 'page_guard', 'policies', policyId),
      schema: z.unknown(),
      emptyOk: true,
    });
  }
}
