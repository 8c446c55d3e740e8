import { ConnectionSchema } from '../../schemas';
import type { Transport } from '../transport';
import { DetectedGroup } from './detected';

/** Detected connections: /zones/{zone_id}/page_guard/connections. */
export class ConnectionsGroup extends DetectedGroup<typeof ConnectionSchema, typeof ConnectionSchema, 'connectionId'> {
  constructor(transport: Transport) {
    super(transport, 'connections', ConnectionSchema, ConnectionSchema, 'connectionId');
  }
}
