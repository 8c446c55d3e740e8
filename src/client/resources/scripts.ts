import { ScriptDetailSchema, ScriptSchema } from '../../schemas';
import type { Transport } from '../transport';
import { DetectedResource } from './detected';

/** Detected scripts: /zones/{zone_id}/page_guard/scripts; `get` adds page_urls and versions. */
export class ScriptsResource extends DetectedResource<typeof ScriptSchema, typeof ScriptDetailSchema, 'scriptId'> {
  constructor(transport: Transport) {
    super(transport, 'scripts', ScriptSchema, ScriptDetailSchema, 'scriptId');
  }
}
