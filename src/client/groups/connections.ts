import { ConnectionSchema } from '../../schemas';
import type { Transport } from '../transport';
import { DetectedGroup, connectionQuery } from './detected';

/** Detected connections: /zones/{zone_id}/page_guard/connections. */
export class ConnectionsGroup extends DetectedGroup<'connections', typeof ConnectionSchema, typeof ConnectionSchema, 'connectionId'> {
  constructor(transport: Transport) {
    super(transport, { segment: 'connections', itemSchema: ConnectionSchema, detailSchema: ConnectionSchema, idKey: 'connectionId', query: connectionQuery });
  }
}
