import { CookieSchema } from '../../schemas';
import type { Transport } from '../transport';
import { DetectedResource } from './detected';

/** Detected cookies: /zones/{zone_id}/page_guard/cookies. */
export class CookiesResource extends DetectedResource<typeof CookieSchema, typeof CookieSchema, 'cookieId'> {
  constructor(transport: Transport) {
    super(transport, 'cookies', CookieSchema, CookieSchema, 'cookieId');
  }
}
