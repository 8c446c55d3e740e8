import { CookieSchema } from '../../schemas';
import type { Transport } from '../transport';
import { DetectedGroup } from './detected';

/** Detected cookies: /zones/{zone_id}/page_guard/cookies. */
export class CookiesGroup extends DetectedGroup<'cookies', typeof CookieSchema, typeof CookieSchema, 'cookieId'> {
  constructor(transport: Transport) {
    super(transport, { segment: 'cookies', itemSchema: CookieSchema, detailSchema: CookieSchema, idKey: 'cookieId' });
  }
}
