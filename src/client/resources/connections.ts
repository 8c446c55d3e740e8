import { ConnectionSchema } from '../../schemas';
import type { Transport } from '../transport';
import { DetectedResource } from './detected';

/** Detected connections: /zones/{zone_id}/page_guard/connections. */
export class ConnectionsResource extends DetectedResource<typeof ConnectionSchema, typeof ConnectionSchema, 'connectionId'> {
  constructor(transport: Transport) {
    super(transport, 'connections', ConnectionSchema, ConnectionSchema, 'connectionId');
  }
}
